import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { PageState } from '../shared/page-data.js'
import { SYSTEM_PAGES } from '../ui/page-table.js'
import { answerFor, errorBody, statusWords, type Answer } from './errors.js'
import { varyByAccept, wantsJson } from './negotiation.js'

/**
 * One place where errors become responses: a client's mistake gets its 4xx
 * with a message it can act on, anything else is logged with the request id
 * and shown as the error document. Also Fastify's `frameworkErrors`: the
 * errors it raises while routing.
 */
export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const answer = answerFor(error)
  if (answer.code === 'FST_UNDER_PRESSURE') {
    // Shed load cheaply: rendering is the work an overloaded server cannot
    // afford. @fastify/under-pressure has already set Retry-After.
    request.log.warn('shed load: the event loop is behind')
    return sendPlain(request, reply, answer)
  }
  if (answer.status >= 500) request.log.error({ err: error }, 'request failed')
  else request.log.info({ code: answer.code, statusCode: answer.status }, answer.message)
  if (!hooksHaveRun(request, reply)) return sendPlain(request, reply, answer)
  sendError(request, reply, answer)
}

/** The error as the client asked for it (negotiation.ts): JSON, or the page for its status. */
export function sendError (request: FastifyRequest, reply: FastifyReply, answer: Answer): void {
  varyByAccept(reply)
  if (wantsJson(request)) reply.status(answer.status).send(errorBody(answer))
  else reply.sendPage(errorPage(answer))
}

function errorPage ({ status, message }: Answer): PageState {
  const { title } = statusWords(status)
  if (status === 404) return { id: SYSTEM_PAGES.notFound.id, status, data: { title } }
  if (status >= 500) return { id: SYSTEM_PAGES.serverError.id, status, data: { title } }
  return { id: SYSTEM_PAGES.clientError.id, status, data: { title, message } }
}

/**
 * Whether the request went through the app's hooks. Errors Fastify raises
 * while routing (FST_ERR_BAD_URL) reach frameworkErrors before any hook, as
 * do errors of a hook that runs before the cookie and security plugins:
 * there are no parsed cookies to build the document from, and no security
 * headers were set.
 */
function hooksHaveRun (request: FastifyRequest, reply: FastifyReply): boolean {
  return request.cookies != null && reply.hasHeader('content-security-policy')
}

/** A plain answer that carries the protections the security plugin did not get to add: it cannot be framed, run or sniffed. */
function sendPlain (request: FastifyRequest, reply: FastifyReply, answer: Answer): void {
  varyByAccept(reply.header('Cache-Control', 'no-store'))
    .status(answer.status)
    .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'")
    .header('X-Content-Type-Options', 'nosniff')
  if (wantsJson(request)) reply.send(errorBody(answer))
  else reply.type('text/plain; charset=utf-8').send(answer.message)
}
