import { parse as parseContentType } from 'content-type'
import type { FastifyReply, FastifyRequest } from 'fastify'
import Negotiator from 'negotiator'
import { boundedMemo } from '../../shared/bounded-memo.js'

// With the charset our JSON is sent in: Negotiator matches an Accept's parameters against the offer's, so a client
// asking for `application/json; charset=utf-8` got the HTML page.
const JSON_OFFER = 'application/json; charset=utf-8'
const OFFERED = ['text/html', JSON_OFFER]

// A browser's Accept is costly to parse and the same every time (docs/performance.md); longer ones are never kept.
const prefersJson = boundedMemo(256, (accept) => new Negotiator({ headers: { accept } }).mediaType(OFFERED) === JSON_OFFER, 512)

/** JSON only when Accept prefers it to text/html (RFC 9110 §12.5.1): `*∕*` and no Accept get the page. */
export function wantsJson (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  // Media types are case-insensitive (RFC 9110 §8.3.1), as Negotiator reads them.
  if (accept === undefined || !/application\//i.test(accept)) return false
  return prefersJson(accept)
}

/** An answer that differs by Accept: no shared cache may hand one client's JSON to another's browser. */
export function varyByAccept (reply: FastifyReply): FastifyReply {
  if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'private, no-cache')
  return addVary(reply, 'Accept')
}

/** What a page depends on besides its address: its cookies (theme, session, toast) and the colour-scheme hint. */
export const PAGE_VARY = 'Cookie, Sec-CH-Prefers-Color-Scheme'

/**
 * An answer made from what this visitor sent (a page, its loader's redirect): no shared cache keeps it, and the browser
 * asks again before using it. A Cache-Control already said stands: an error page's no-store, or a loader's.
 */
export function varyByVisitor (reply: FastifyReply): FastifyReply {
  if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'private, no-cache')
  return addVary(reply, PAGE_VARY)
}

export function addVary (reply: FastifyReply, names: string): FastifyReply {
  const vary = reply.getHeader('vary')
  return reply.header('Vary', typeof vary === 'string' && vary !== '' ? `${vary}, ${names}` : names)
}

/** A body's media type, lower-case and without parameters, and its charset if it names one (RFC 9110 §8.3). */
export function bodyTypeOf (request: FastifyRequest): { type: string, charset: string | undefined } {
  const { type, parameters } = parseContentType(request.headers['content-type'] ?? '')
  return { type, charset: parameters.charset }
}

// The body parsers read every body as UTF-8, of which US-ASCII is a part; any other charset would be misread.
const READABLE_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii'])

export function readableCharset (charset: string | undefined): boolean {
  return charset === undefined || READABLE_CHARSETS.has(charset.toLowerCase())
}
