import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { SYSTEM_PAGES } from '../ui/page-table.js'
import { sendPage } from './page-response.js'

/** Messages a person can act on, for the errors Fastify raises about a request. */
const CLIENT_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'This content type is not accepted here. Send a form or JSON.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty; JSON was expected.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body.'
}

export function prefersHtml (request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? ''
  return accept.includes('text/html') && !accept.startsWith('application/json')
}

/**
 * One place where errors become responses: a client's mistake gets its 4xx
 * with a message it can act on (an HTML page for browsers, JSON otherwise);
 * anything else is logged with the request id and shown as the error document.
 */
export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  if (error.code === 'FST_UNDER_PRESSURE') {
    // Shed load cheaply: rendering React is the work an overloaded server cannot afford, and the
    // hooks after load shedding (cookies, CSP nonce) have not run, so the document cannot be built.
    // @fastify/under-pressure has already set Retry-After. Expected under load: a warning, no stack.
    request.log.warn('shed load: the event loop is behind')
    if (prefersHtml(request)) return reply.status(503).type('text/plain; charset=utf-8').send(error.message)
    return reply.status(503).send({ statusCode: 503, error: 'Service Unavailable', message: error.message })
  }
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    if (prefersHtml(request)) return sendPage(request, reply, null)
    return reply.status(status).send({ statusCode: status, error: 'Internal Server Error', message: 'Something went wrong on our side. Please try again.' })
  }
  const message = CLIENT_MESSAGES[error.code] ?? error.message
  if (reply.statusCode === 200 || reply.statusCode < 400) reply.status(status)
  if (prefersHtml(request)) return sendPage(request, reply, { id: SYSTEM_PAGES.badRequest.id, status, data: { message } })
  return reply.status(status).send({ statusCode: status, error: httpReason(status), message })
}

function httpReason (status: number): string {
  return ({ 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 429: 'Too Many Requests' } as Record<number, string>)[status] ?? 'Error'
}
