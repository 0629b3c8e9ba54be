import type { FastifyReply, FastifyRequest } from 'fastify'
import { COLOR_SCHEME_COOKIE, COLOR_SCHEME_HEADER, TIME_ZONE_COOKIE, resolveHints, type HintSources, type Hints } from '../../shared/client-hints.js'

/** The browser's hints as this request tells them; never written back (a fallback would pass for the browser's). */
export function readHints (request: FastifyRequest): { hints: Hints, sources: HintSources } {
  return resolveHints({
    colorSchemeCookie: request.cookies[COLOR_SCHEME_COOKIE],
    timeZoneCookie: request.cookies[TIME_ZONE_COOKIE],
    colorSchemeHeader: request.headers[COLOR_SCHEME_HEADER.toLowerCase()]
  })
}

// Critical-CH only on safe methods: the browser retries the request with the hint, and a retried POST is sent twice.
// https://wicg.github.io/client-hints-infrastructure/#critical-ch
export function advertiseClientHints (request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Accept-CH', COLOR_SCHEME_HEADER)
  if (request.method === 'GET' || request.method === 'HEAD') reply.header('Critical-CH', COLOR_SCHEME_HEADER)
}
