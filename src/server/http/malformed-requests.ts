import type { IncomingMessage } from 'node:http'
import type { ErrorCode } from '../errors.js'

/**
 * What HTTP/1.1 calls malformed but Node's parser lets through: a request without Host (RFC 9112 §3.2; Node's own
 * check, a bare 400, is turned off in app.ts so that the app answers), and a target of `*` for any method but OPTIONS,
 * the only one it may name (§3.2.4), which Fastify's router reads as `/`.
 */
export function malformation ({ httpVersionMajor, httpVersionMinor, headers, method, url }: IncomingMessage): ErrorCode | undefined {
  // HTTP/1.0 has no Host to require.
  if (httpVersionMajor === 1 && httpVersionMinor === 1 && headers.host === undefined) return 'HOST_MISSING'
  if (url === '*' && method !== 'OPTIONS') return 'MALFORMED_REQUEST'
  return undefined
}
