import type { IncomingMessage } from 'node:http'
import type { ErrorCode } from '../errors.js'

/**
 * What HTTP/1.1 calls malformed but Node's parser lets through: a request without Host or with two (RFC 9112 §3.2;
 * Node's own check for none, a bare 400, is turned off in app.ts so that the app answers), and a target of `*` for any
 * method but OPTIONS, the only one it may name (§3.2.4), which Fastify's router reads as `/`.
 */
export function malformation ({ httpVersionMajor, httpVersionMinor, headers, rawHeaders, method, url }: IncomingMessage): ErrorCode | undefined {
  // HTTP/1.0 has no Host to require.
  if (httpVersionMajor === 1 && httpVersionMinor === 1 && headers.host === undefined) return 'HOST_MISSING'
  if (headers.host !== undefined && hostLines(rawHeaders) > 1) return 'HOST_REPEATED'
  if (url === '*' && method !== 'OPTIONS') return 'MALFORMED_REQUEST'
  return undefined
}

/** Node keeps the first of two Host lines and drops the other; a proxy in front may have routed by the other one. */
function hostLines (rawHeaders: readonly string[]): number {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]
    if (name?.length === 4 && name.toLowerCase() === 'host') count++
  }
  return count
}
