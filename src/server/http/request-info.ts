import type { FastifyRequest } from 'fastify'
import { isbot } from 'isbot'
import type { RequestInfo } from '../../shared/page-data.js'
import { boundedMemo } from '../../shared/bounded-memo.js'
import { safeRedirect } from '../../shared/safe-redirect.js'
import { readHints } from './client-hints.js'

// isbot runs one large regular expression: each agent is judged once; one longer than browsers send is never kept.
const isBotAgent = boundedMemo(1024, isbot, 1024)

/** A page shown for a POST (a 400 from the theme switch) is not an address to return to. */
const pathOf = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD' ? request.url : '/'

/** `path`: the address the page stands for, when it is not the request's (a form's page shown again for its POST). */
export function readRequestInfo (request: FastifyRequest, path = pathOf(request)): RequestInfo {
  const { hints, sources } = readHints(request)
  return {
    hints,
    hintSources: sources,
    userPrefs: { theme: request.server.themeCookie.read(request) },
    isBot: isBotAgent(request.headers['user-agent'] ?? ''),
    path,
    // Reduced here as the theme switch will: an over-long address would only push a form's body past its limit.
    returnTo: safeRedirect(path),
    origin: originOf(`${request.protocol}://${request.host}`)
  }
}

/** The same few hosts come back on every request; parsing each once is enough. A DNS name has at most 253 characters. */
const originOf = boundedMemo(256, (address): string | null => {
  try {
    return new URL(address).origin
  } catch {
    return null
  }
}, 300)
