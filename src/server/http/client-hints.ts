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

// Accept-CH without Critical-CH: the check script paints the theme before the first frame anyway, so a retry of the
// first request for the hint would only cost a round trip (docs/decisions/theme-and-client-hints.md).
export function advertiseClientHints (reply: FastifyReply): void {
  reply.header('Accept-CH', COLOR_SCHEME_HEADER)
}
