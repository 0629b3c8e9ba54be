import type { FastifyRequest } from 'fastify'

/**
 * Whether a state-changing request was sent from another site, judged by the
 * headers browsers add and pages cannot forge: `Sec-Fetch-Site` and `Origin`
 * (https://web.dev/articles/fetch-metadata). A request with neither (curl,
 * an older browser's form) is allowed: it is not a browser acting for another
 * site. `Origin` must name this very host: a sibling subdomain is another
 * origin, and telling a trusted sibling from a hostile one would need the
 * Public Suffix List and a list of our own subdomains.
 */
export function isCrossSiteRequest (headers: { origin?: string | string[], 'sec-fetch-site'?: string | string[] }, host: string): boolean {
  const site = headers['sec-fetch-site']
  if (site !== undefined && (typeof site !== 'string' || site.toLowerCase() === 'cross-site')) return true
  const origin = headers.origin
  if (origin === undefined) return false
  // `Origin: null` (sandboxed frames, some redirects) and repeated headers are not ours.
  if (typeof origin !== 'string') return true
  return !isOrigin(origin, host)
}

export function isCrossSite (request: FastifyRequest): boolean {
  return isCrossSiteRequest(request.headers, request.host)
}

/** Whether `origin` names `host` (a Host header: name and optional port). */
function isOrigin (origin: string, host: string): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase().replace(/\/$/, '')) return false
  const expected = host.toLowerCase()
  // URL drops a scheme's default port; a Host header may still carry it.
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return url.host === expected || `${url.hostname}:${port}` === expected
}
