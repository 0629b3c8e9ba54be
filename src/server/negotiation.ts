import type { FastifyReply, FastifyRequest } from 'fastify'
import Negotiator from 'negotiator'

const OFFERED = ['text/html', 'application/json']

/**
 * The one rule for every answer that comes as a page or as JSON (errors, the
 * theme switch): JSON when the client's Accept prefers application/json to
 * text/html, by q-value and then specificity (RFC 9110 §12.5.1); the page
 * otherwise, including for no Accept at all and for `*∕*`. Browsers
 * navigating send text/html; `fetch` sends `*∕*` unless told, so a script
 * asks for JSON by naming it.
 */
export function wantsJson (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  // Only a header naming an application type can prefer JSON: the common cases skip parsing.
  if (accept === undefined || !accept.includes('application/')) return false
  return new Negotiator({ headers: { accept } }).mediaType(OFFERED) === 'application/json'
}

/**
 * Marks an answer that differs by Accept: shared caches must neither store
 * it nor serve one client's JSON to another's browser. A route that says
 * more (no-store) keeps its own Cache-Control.
 */
export function varyByAccept (reply: FastifyReply): FastifyReply {
  if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'private, no-cache')
  return addVary(reply, 'Accept')
}

/** Adds request headers to the answer's Vary, keeping those already named. */
export function addVary (reply: FastifyReply, names: string): FastifyReply {
  const vary = reply.getHeader('vary')
  return reply.header('Vary', typeof vary === 'string' && vary !== '' ? `${vary}, ${names}` : names)
}
