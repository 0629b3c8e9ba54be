import type { FastifyInstance } from 'fastify'
import type { Socket } from 'node:net'
import { ERRORS, statusWords, type ErrorCode } from '../errors.js'

const BY_PARSER_CODE: Readonly<Record<string, ErrorCode>> = {
  HPE_HEADER_OVERFLOW: 'HEAD_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT'
}

/** No request headers to negotiate with: the catalogue's words as plain text, which a person and a script can read. */
export function parserRefusal (parserCode: string | undefined, headers: Readonly<Record<string, string>>): string {
  const { status, message } = ERRORS[BY_PARSER_CODE[parserCode ?? ''] ?? 'MALFORMED_REQUEST']
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
  if (socket.writable) socket.write(parserRefusal(error.code, this.hasDecorator('answerHeaders') ? this.answerHeaders : {}))
  socket.destroy(error)
}
