/** Every error the shell answers: status, words for protocols and for people, and a message a client can act on. */

export interface StatusWords {
  /** RFC 9110 §15, for the JSON `error` field. */
  reason: string
  title: string
}

export const STATUSES = {
  400: { reason: 'Bad Request', title: 'Bad request' },
  403: { reason: 'Forbidden', title: 'Forbidden' },
  404: { reason: 'Not Found', title: 'Page not found' },
  405: { reason: 'Method Not Allowed', title: 'Method not allowed' },
  408: { reason: 'Request Timeout', title: 'Request timed out' },
  412: { reason: 'Precondition Failed', title: 'Changed since your copy' },
  413: { reason: 'Payload Too Large', title: 'Request too large' },
  415: { reason: 'Unsupported Media Type', title: 'Unsupported content type' },
  416: { reason: 'Range Not Satisfiable', title: 'Range outside the file' },
  422: { reason: 'Unprocessable Content', title: 'Some answers need correcting' },
  429: { reason: 'Too Many Requests', title: 'Too many requests' },
  431: { reason: 'Request Header Fields Too Large', title: 'Request too large' },
  500: { reason: 'Internal Server Error', title: 'Error' },
  503: { reason: 'Service Unavailable', title: 'Service unavailable' }
} as const satisfies Record<number, StatusWords>

export type ErrorStatus = keyof typeof STATUSES

const FORM_NOT_VERIFIED = 'The form could not be verified. Please reload the page and try again.'

export const ERRORS = {
  BAD_REQUEST: { status: 400, message: 'This request could not be processed.' },
  // The next three are Node's parser's refusals (src/server/http/client-errors.ts); the next after, what it lets through.
  MALFORMED_REQUEST: { status: 400, message: 'This request could not be read as HTTP: its request line, headers or body framing are malformed.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time. Please try again.' },
  HEAD_TOO_LARGE: { status: 431, message: 'The address, or the headers and cookies sent with it, are too long for this server. Shorten the address or clear this site\'s cookies, and try again.' },
  HOST_MISSING: { status: 400, message: 'This request does not say which site it is for: an HTTP/1.1 request must carry a Host header.' },
  HOST_REPEATED: { status: 400, message: 'This request names its site more than once: it must carry exactly one Host header.' },
  FST_ERR_VALIDATION: { status: 400, message: 'The request is not valid.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'The request body is empty; JSON was expected.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'The Content-Length header does not match the body.' },
  // Fastify's own message quotes the path back.
  FST_ERR_BAD_URL: { status: 400, message: 'This address is not valid: every % in a path must begin an escape such as %2F, and the escapes must spell UTF-8 text.' },
  FORM_NOT_AN_OBJECT: { status: 400, message: 'The request body must be a form or a JSON object of the form\'s fields.' },
  // One message for several honeypot codes, so a bot learns nothing about which check it failed.
  HONEYPOT_MISSING: { status: 400, message: FORM_NOT_VERIFIED },
  HONEYPOT_FILLED: { status: 400, message: 'The form could not be submitted because a field meant to stay empty was filled in. Please reload the page and try again.' },
  TIMESTAMP_MISSING: { status: 400, message: FORM_NOT_VERIFIED },
  TIMESTAMP_INVALID: { status: 400, message: FORM_NOT_VERIFIED },
  TIMESTAMP_FUTURE: { status: 400, message: FORM_NOT_VERIFIED },
  TOO_FAST: { status: 400, message: 'This form was submitted too quickly. Please wait a moment and try again.' },
  EXPIRED: { status: 400, message: 'This form has expired. Please reload the page and try again.' },
  CROSS_SITE: { status: 403, message: 'This request came from another site, so nothing was changed.' },
  NOT_FOUND: { status: 404, message: 'There is nothing at this address.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This address does not accept this method.' },
  TUNNEL_REFUSED: { status: 405, message: 'This server is not a proxy: it opens no tunnels, so it accepts no CONNECT requests.' },
  PRECONDITION_FAILED: { status: 412, message: 'The file changed since your copy: the condition in If-Match or If-Unmodified-Since did not hold. Fetch it again.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'This content type is not accepted here. Send a form or JSON.' },
  CHARSET_NOT_ACCEPTED: { status: 415, message: 'This text is in a character set the server does not read. Send the form or JSON as UTF-8, with charset=utf-8 or no charset at all.' },
  // @fastify/compress's own messages quote the request's Content-Encoding back.
  FST_CP_ERR_INVALID_CONTENT_ENCODING: { status: 415, message: 'This Content-Encoding is not accepted here. Send the body uncompressed, or compressed with gzip, br, deflate or zstd.' },
  FST_CP_ERR_INVALID_CONTENT: { status: 400, message: 'The request body could not be decompressed as its Content-Encoding says.' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'The requested range lies outside the file. Ask for bytes within its length, which Content-Range gives.' },
  FORM_INVALID: { status: 422, message: 'Some answers need correcting before the form can be sent.' },
  TOO_MANY_REPORTS: { status: 429, message: 'Too many CSP reports have arrived this minute. Retry after the time Retry-After gives.' },
  INTERNAL: { status: 500, message: 'Something went wrong on our side. Please try again.' },
  FST_UNDER_PRESSURE: { status: 503, message: 'The server is busy. Please retry shortly.' }
} as const satisfies Record<string, { status: ErrorStatus, message: string }>

export type ErrorCode = keyof typeof ERRORS

const SEND_IT_AGAIN = 'The form could not be verified. Please send it again.'

// A form shown again carries a fresh timestamp, so "reload the page" would throw away the answers for nothing.
export const SEND_AGAIN = {
  HONEYPOT_MISSING: SEND_IT_AGAIN,
  HONEYPOT_FILLED: 'The form could not be sent because a field meant to stay empty was filled in. Please send it again.',
  TIMESTAMP_MISSING: SEND_IT_AGAIN,
  TIMESTAMP_INVALID: SEND_IT_AGAIN,
  TIMESTAMP_FUTURE: SEND_IT_AGAIN,
  TOO_FAST: ERRORS.TOO_FAST.message,
  EXPIRED: 'This form had expired. Please check your answers and send it again.'
} as const satisfies Partial<Record<ErrorCode, string>>

export class ClientError extends Error {
  readonly statusCode: number
  readonly code: ErrorCode

  constructor (code: ErrorCode, message: string = ERRORS[code].message) {
    super(message)
    this.name = 'ClientError'
    this.code = code
    this.statusCode = ERRORS[code].status
  }
}

export function clientError (code: ErrorCode, message?: string): ClientError {
  return new ClientError(code, message)
}

/** A 416 that knows the file's length says it in words too; its Content-Range says it to machines (RFC 9110 §15.5.17). */
export function rangeNotSatisfiable (length: number): ClientError {
  return clientError('RANGE_NOT_SATISFIABLE', `The requested range lies outside the file, which is ${length} bytes long.`)
}

export function statusWords (status: number): StatusWords {
  return (STATUSES as Record<number, StatusWords>)[status] ?? (status >= 500 ? STATUSES[500] : STATUSES[400])
}

export interface Answer {
  status: number
  code: string
  message: string
}

/** What the client is told about anything thrown: Fastify's texts give way to ours, and a 5xx's cause stays in the log. */
export function answerFor (error: { statusCode?: unknown, code?: unknown, message?: unknown }): Answer {
  const code = typeof error.code === 'string' ? error.code : ''
  const known = (ERRORS as Record<string, { status: number, message: string } | undefined>)[code]
  const given = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : undefined
  const status = given ?? known?.status ?? 500
  if (status >= 500) return { status, code: known?.status === status ? code : 'INTERNAL', message: known?.status === status ? known.message : ERRORS.INTERNAL.message }
  // Only our words: a library's message may quote what the client sent (a header, a path) back into the page.
  const message = error instanceof ClientError ? error.message : known?.message ?? ERRORS.BAD_REQUEST.message
  return { status, code: code || 'BAD_REQUEST', message }
}

export function errorBody ({ status, message }: Answer): { statusCode: number, error: string, message: string } {
  return { statusCode: status, error: statusWords(status).reason, message }
}
