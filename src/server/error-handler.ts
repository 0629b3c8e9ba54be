import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { SYSTEM_PAGES } from '../ui/page-table.js'
import { sendPage } from './page-response.js'

/** Messages a person can act on, for the errors Fastify raises about a request. */
const CLIENT_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'This content type is not accepted here. Send a form or JSON.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty; JSON was expected.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the body.',
  // Fastify's own message quotes the path back.
  FST_ERR_BAD_URL: 'This address is not valid: every % in a path must begin an escape such as %2F, and the escapes must spell UTF-8 text.'
}

const SERVER_MESSAGE = 'Something went wrong on our side. Please try again.'

/** An error the error handler answers with `statusCode` and `message`, shown to the client as they are. */
export function clientError (statusCode: number, code: string, message: string): Error {
  return Object.assign(new Error(message), { statusCode, code })
}

export function prefersHtml (request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? ''
  return accept.includes('text/html') && !accept.startsWith('application/json')
}

/** A script asking for JSON, as opposed to a browser or a client with no preference. */
export function wantsJson (request: FastifyRequest): boolean {
  return !prefersHtml(request) && (request.headers.accept ?? '').includes('application/json')
}

/**
 * One place where errors become responses: a client's mistake gets its 4xx
 * with a message it can act on (an HTML page for browsers, JSON otherwise);
 * anything else is logged with the request id and shown as the error document.
 * Also Fastify's `frameworkErrors`: the errors it raises while routing.
 */
export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  if (error.code === 'FST_UNDER_PRESSURE') {
    // Shed load cheaply: rendering React is the work an overloaded server cannot afford, and the
    // hooks after load shedding (security headers, cookies) have not run, so the document cannot be built.
    // @fastify/under-pressure has already set Retry-After. Expected under load: a warning, no stack.
    request.log.warn('shed load: the event loop is behind')
    return sendPlain(request, reply, 503, error.message)
  }
  if (!hooksHaveRun(request, reply)) return sendWithoutHooks(request, reply, status, error)
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    if (prefersHtml(request)) sendPage(request, reply, null)
    else reply.status(status).send({ statusCode: status, error: httpReason(status), message: SERVER_MESSAGE })
    return
  }
  const message = CLIENT_MESSAGES[error.code] ?? error.message
  if (reply.statusCode === 200 || reply.statusCode < 400) reply.status(status)
  if (prefersHtml(request)) sendPage(request, reply, { id: SYSTEM_PAGES.badRequest.id, status, data: { message } })
  else reply.status(status).send({ statusCode: status, error: httpReason(status), message })
}

/**
 * Whether the request went through the app's hooks. Errors Fastify raises
 * while routing (FST_ERR_BAD_URL: a path whose escapes do not decode) reach
 * frameworkErrors before any hook, as do errors of a hook that runs before
 * the cookie and security plugins: there are no parsed cookies, so the
 * document cannot be built, and no security headers (the CSP among them) were set.
 */
function hooksHaveRun (request: FastifyRequest, reply: FastifyReply): boolean {
  return request.cookies != null && reply.hasHeader('content-security-policy')
}

function sendWithoutHooks (request: FastifyRequest, reply: FastifyReply, status: number, error: FastifyError): void {
  if (status >= 500) request.log.error({ err: error }, 'request failed')
  sendPlain(request, reply, status, status >= 500 ? SERVER_MESSAGE : CLIENT_MESSAGES[error.code] ?? error.message)
}

/** A plain answer that carries the protections the security plugin did not get to add: it cannot be framed, run or sniffed. */
function sendPlain (request: FastifyRequest, reply: FastifyReply, status: number, message: string): void {
  reply
    .status(status)
    .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'")
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store')
  if (prefersHtml(request)) reply.type('text/plain; charset=utf-8').send(message)
  else reply.send({ statusCode: status, error: httpReason(status), message })
}

function httpReason (status: number): string {
  return ({ 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' } as Record<number, string>)[status] ?? 'Error'
}
