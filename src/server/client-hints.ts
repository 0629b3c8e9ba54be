import type { FastifyReply, FastifyRequest } from 'fastify'
import { COLOR_SCHEME_COOKIE, COLOR_SCHEME_HEADER, TIME_ZONE_COOKIE, resolveHints, type HintSources, type Hints } from '../shared/client-hints.js'

/**
 * The browser's hints as this request tells them: the Sec-CH header, else
 * the hint cookies written by the page's check script, else the fallbacks
 * (light, UTC). Never writes a cookie: a fallback written back would be taken
 * for the browser's own value on the next visit.
 */
export function readHints (request: FastifyRequest): { hints: Hints, sources: HintSources } {
  return resolveHints({
    colorSchemeCookie: request.cookies[COLOR_SCHEME_COOKIE],
    timeZoneCookie: request.cookies[TIME_ZONE_COOKIE],
    colorSchemeHeader: request.headers[COLOR_SCHEME_HEADER.toLowerCase()]
  })
}

/**
 * Asks Chromium for the colour-scheme header on later requests (Accept-CH),
 * and to retry this one with it when it was missing (Critical-CH), so even a
 * first visit renders the right theme without a client-side reload. Pages
 * rendered from it must name it in Vary (page-response.ts PAGE_VARY).
 * Critical-CH only for safe methods: a retried POST would be sent twice.
 * https://wicg.github.io/client-hints-infrastructure/#critical-ch
 */
export function advertiseClientHints (request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Accept-CH', COLOR_SCHEME_HEADER)
  if (request.method === 'GET' || request.method === 'HEAD') reply.header('Critical-CH', COLOR_SCHEME_HEADER)
}
