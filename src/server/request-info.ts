import type { FastifyRequest } from 'fastify'
import { isbot } from 'isbot'
import type { RequestInfo } from '../shared/page-data.js'
import { boundedMemo } from '../shared/bounded-memo.js'
import { safeRedirect } from '../shared/safe-redirect.js'
import { readHints } from './client-hints.js'

/** isbot runs one large regular expression: a visitor's user agent is judged once, not on every page. */
const isBotAgent = boundedMemo(1024, isbot)

/** What the document needs to know about the visitor, read once per request. */
export function readRequestInfo (request: FastifyRequest): RequestInfo {
  const { hints, sources } = readHints(request)
  // A page shown for a POST (a 400 from the theme switch) is not an address to return to.
  const path = request.method === 'GET' || request.method === 'HEAD' ? request.url : '/'
  return {
    hints,
    hintSources: sources,
    userPrefs: { theme: request.server.themeCookie.read(request) },
    isBot: isBotAgent(request.headers['user-agent'] ?? ''),
    path,
    // Reduced here as the theme switch will: an over-long address would only push a form's body past its limit.
    returnTo: safeRedirect(path)
  }
}
