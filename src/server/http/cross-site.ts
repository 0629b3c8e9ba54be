import type { FastifyRequest } from 'fastify'

export interface RequestOrigin {
  protocol: string
  host: string
}

// By `Sec-Fetch-Site` and `Origin` (https://web.dev/articles/fetch-metadata); neither (curl) is allowed. `Origin` must
// be this very scheme and host: a sibling subdomain or the http page of an https site is another site.
export function isCrossSiteRequest (headers: { origin?: string | string[], 'sec-fetch-site'?: string | string[] }, target: RequestOrigin): boolean {
  const site = headers['sec-fetch-site']
  if (site !== undefined && (typeof site !== 'string' || site.toLowerCase() === 'cross-site')) return true
  const origin = headers.origin
  if (origin === undefined) return false
  // `Origin: null` (sandboxed frames, some redirects) and repeated headers are not ours.
  if (typeof origin !== 'string') return true
  return !isOrigin(origin, target)
}

/** Behind a TLS-terminating proxy the scheme is the proxy's X-Forwarded-Proto, believed only with TRUST_PROXY. */
export function isCrossSite (request: FastifyRequest): boolean {
  return isCrossSiteRequest(request.headers, { protocol: request.protocol ?? 'http', host: request.host })
}

function isOrigin (origin: string, { protocol, host }: RequestOrigin): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase().replace(/\/$/, '')) return false
  if (url.protocol !== `${protocol.toLowerCase()}:`) return false
  const expected = host.toLowerCase()
  // URL drops a scheme's default port; a Host header may still carry it.
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return url.host === expected || `${url.hostname}:${port}` === expected
}
