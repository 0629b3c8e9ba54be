import type { FastifyInstance } from 'fastify'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { ERRORS, statusWords, type ErrorCode } from '../errors.js'

const BY_PARSER_CODE: Readonly<Record<string, ErrorCode>> = {
  HPE_HEADER_OVERFLOW: 'HEAD_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT'
}

/** No request headers to negotiate with: the catalogue's words as plain text, which a person and a script can read. */
export function plainRefusal (code: ErrorCode, headers: Readonly<Record<string, string>>): string {
  const { status, message } = ERRORS[code]
  const fields = {
    ...headers,
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(message)),
    'cache-control': 'no-store',
    connection: 'close'
  }
  const lines = Object.entries(fields).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return `HTTP/1.1 ${status} ${statusWords(status).reason}\r\n${lines}\r\n${message}`
}

/** Fastify's `clientErrorHandler`: in place of its JSON, the catalogue's words with an answer's security headers. */
export function answerParserRefusal (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one to answer (Node's own rule for this event).
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  this.log.debug({ err: error }, 'a request the HTTP parser refused')
  const code = BY_PARSER_CODE[error.code ?? ''] ?? 'MALFORMED_REQUEST'
  if (socket.writable) socket.write(plainRefusal(code, this.hasDecorator('answerHeaders') ? this.answerHeaders : {}))
  socket.destroy(error)
}

/**
 * The server's 'connect' listener. Node hands a CONNECT to it instead of Fastify, and destroys the connection
 * unanswered when nothing listens; a client that asked for a tunnel is told why there is none (RFC 9110 §9.3.6).
 */
export function refuseTunnel (this: FastifyInstance, request: IncomingMessage, socket: Duplex): void {
  this.log.debug({ url: request.url }, 'a CONNECT request refused')
  // Node took its own listeners off with the connection: a client gone before the answer left must not throw.
  socket.on('error', (error) => { this.log.debug({ err: error }, 'a refused CONNECT\'s client went away') })
  // What the target allows, as every 405 says: none of this server's methods for another host's port.
  const allow = this.allowedMethods(request.url ?? '').join(', ')
  socket.end(plainRefusal('TUNNEL_REFUSED', { ...this.answerHeaders, allow }), () => socket.destroy())
}
