import type { FastifyRequest } from 'fastify'
import { isbot } from 'isbot'
import type { RequestInfo } from '../shared/page-data.js'
import { readHints } from './client-hints.js'

/** What the document needs to know about the visitor, read once per request. */
export function readRequestInfo (request: FastifyRequest): RequestInfo {
  const { hints, sources } = readHints(request)
  return {
    hints,
    hintSources: sources,
    userPrefs: { theme: request.server.themeCookie.read(request) },
    isBot: isbot(request.headers['user-agent']),
    // A page shown for a POST (a 400 from the theme switch) is not an address to return to.
    path: request.method === 'GET' || request.method === 'HEAD' ? request.url : '/',
    origin: requestOrigin(request)
  }
}

function requestOrigin (request: FastifyRequest): string | null {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin
  } catch {
    return null
  }
}
