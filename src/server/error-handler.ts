import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { PageState } from '../shared/page-data.js'
import { SYSTEM_SCREENS } from '../ui/define-screen.js'
import { answerFor, errorBody, statusWords, type Answer } from './errors.js'
import { varyByAccept, wantsJson } from './http/negotiation.js'

/** Decorates an app that logs each request in one line, status included, so a client error needs no line of its own. */
export const ONE_LINE_REQUEST_LOG = 'oneLineRequestLog'

export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const answer = answerFor(error)
  if (answer.code === 'FST_UNDER_PRESSURE') {
    // Shed cheaply: rendering is what an overloaded server cannot afford.
    request.log.warn('shed load: the event loop is behind')
    return sendPlain(request, reply, answer)
  }
  logAnswer(error, request, answer)
  if (!hooksHaveRun(request, reply)) return sendPlain(request, reply, answer)
  sendError(request, reply, answer, answer.status >= 500 ? error : undefined)
}

/** For addresses browsers post to on their own (CSP reports): words or JSON, never a document, so no cookie is read or set. */
export function handleErrorPlainly (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const answer = answerFor(error)
  logAnswer(error, request, answer)
  sendPlain(request, reply, answer)
}

function logAnswer (error: FastifyError, request: FastifyRequest, answer: Answer): void {
  if (answer.status >= 500) request.log.error({ err: error }, 'request failed')
  // The development server's line for each request already says it (src/server/dev/).
  else if (!request.server.hasDecorator(ONE_LINE_REQUEST_LOG)) request.log.info({ code: answer.code, statusCode: answer.status }, answer.message)
}

export function sendError (request: FastifyRequest, reply: FastifyReply, answer: Answer, cause?: unknown): void {
  varyByAccept(reply)
  if (wantsJson(request)) reply.status(answer.status).send(errorBody(answer))
  else reply.sendPage(errorPage(answer), undefined, cause)
}

function errorPage ({ status, message }: Answer): PageState {
  const { title } = statusWords(status)
  // The message too: a loader's `clientError('NOT_FOUND', 'This note was deleted.')` reaches a browser, not only a script.
  if (status === 404) return { id: SYSTEM_SCREENS.notFound, status, data: { title, message } }
  if (status >= 500) return { id: SYSTEM_SCREENS.serverError, status, data: { title } }
  return { id: SYSTEM_SCREENS.clientError, status, data: { title, message } }
}

/** Errors raised while routing or before the cookie and security hooks have no cookies or headers to build a page with. */
function hooksHaveRun (request: FastifyRequest, reply: FastifyReply): boolean {
  return request.cookies != null && reply.hasHeader('content-security-policy')
}

function sendPlain (request: FastifyRequest, reply: FastifyReply, answer: Answer): void {
  // A malformed address or shed load is answered before the security hook runs: its headers all the same (nosniff among
  // them), with the policy of an answer that is not a document.
  if (request.server.hasDecorator('securityHeaders')) reply.headers(request.server.securityHeaders)
  varyByAccept(reply.header('Cache-Control', 'no-store'))
    .status(answer.status)
    .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'")
  if (wantsJson(request)) reply.send(errorBody(answer))
  else reply.type('text/plain; charset=utf-8').send(answer.message)
}
