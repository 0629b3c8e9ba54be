import type { FastifyReply, FastifyRequest } from 'fastify'

export type Speculation = 'none' | 'prefetch' | 'prerender'

// `Sec-Purpose` marks prefetches and prerenders, which carry cookies but may never be shown
// (https://wicg.github.io/nav-speculation/prefetch.html).
export function speculationOf (request: FastifyRequest): Speculation {
  const header = request.headers['sec-purpose']
  if (typeof header !== 'string') return 'none'
  const [item = '', ...parameters] = header.split(',')[0]?.split(';').map((part) => part.trim()) ?? []
  if (item !== 'prefetch') return 'none'
  // A boolean parameter: bare (`;prerender`) or `=?1` is true, `=?0` false (RFC 8941, 3.3.6).
  return parameters.some((parameter) => parameter === 'prerender' || parameter === 'prerender=?1') ? 'prerender' : 'prefetch'
}

/** The status and headers that make the browser drop a speculation and ask again on the click; the body is empty. */
export function refuseSpeculation (reply: FastifyReply): FastifyReply {
  return reply.status(503).header('Cache-Control', 'no-store').header('Vary', 'Sec-Purpose, Cookie')
}
