import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'
import type { Toast, ToastType } from '../shared/page-data.js'

/**
 * The flash toast: a message set by an action (usually before a 303) and shown
 * once by the next page. Its cookie's name, attributes and parsing live here
 * only; routes see Toast objects, never cookie strings.
 * Needs @fastify/cookie registered with a `secret` (the cookie is signed).
 */

export const FLASH_TOAST_COOKIE = 'en_toast'
/** Seconds. Long enough to survive a redirect on a slow connection, short enough not to surprise later. */
const MAX_AGE = 60
/** Browsers drop cookies over 4096 bytes (name + value); leave room for the signature and its %-encoding. */
const MAX_ENCODED_CHARS = 3800

/** The cookie's contents, checked on every read: a cookie is input like any other. */
const ToastSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.Union([Type.Literal('message'), Type.Literal('success'), Type.Literal('error')]),
  title: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.String({ minLength: 1, maxLength: 1000 })
}, { additionalProperties: false })

// page-data.ts declares Toast by hand; these fail to compile if schema and type drift apart.
type SchemaToast = Static<typeof ToastSchema>
const schemaFitsToast = (toast: SchemaToast): Toast => toast
const toastFitsSchema = (toast: Toast): SchemaToast => toast
void schemaFitsToast
void toastFitsSchema

export interface FlashToastInput {
  type?: ToastType
  title?: string
  description: string
  id?: string
}

export interface FlashToastCookieOptions {
  /** Send only over HTTPS: true in production. */
  secure: boolean
}

function cookieAttributes ({ secure }: FlashToastCookieOptions) {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure } as const
}

/**
 * Queues a toast for the next page. Throws TypeError for a toast that would be
 * refused when read back (empty or over-long text) or that does not fit in a
 * cookie, so the mistake shows where it is made rather than as a missing toast.
 */
export function setFlashToast (reply: FastifyReply, toast: FlashToastInput, options: FlashToastCookieOptions): void {
  const value: Toast = {
    id: toast.id ?? randomUUID(),
    type: toast.type ?? 'message',
    ...(toast.title === undefined ? {} : { title: toast.title }),
    description: toast.description
  }
  if (!Value.Check(ToastSchema, value)) {
    const [first] = Value.Errors(ToastSchema, value)
    throw new TypeError(`setFlashToast: invalid toast${first ? ` (${first.instancePath || '/'} ${first.message})` : ''}.`)
  }
  const encoded = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')
  if (encoded.length > MAX_ENCODED_CHARS) {
    throw new TypeError(`setFlashToast: the toast is too large for a cookie (${encoded.length} > ${MAX_ENCODED_CHARS} characters encoded).`)
  }
  reply.setCookie(FLASH_TOAST_COOKIE, encoded, { ...cookieAttributes(options), maxAge: MAX_AGE, signed: true })
}

/**
 * Reads the flash toast once. When the cookie is present it is cleared in this
 * response, valid or not; anything tampered, unsigned or malformed reads as
 * null. Never throws on cookie contents.
 */
export function takeFlashToast (request: FastifyRequest, reply: FastifyReply, options: FlashToastCookieOptions = { secure: false }): Toast | null {
  const raw = request.cookies[FLASH_TOAST_COOKIE]
  if (raw === undefined) return null
  // Same Path (and attributes) as when set, or the browser keeps the original.
  reply.clearCookie(FLASH_TOAST_COOKIE, cookieAttributes(options))
  try {
    const unsigned = request.unsignCookie(raw)
    if (!unsigned.valid) return null
    const data: unknown = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8'))
    return Value.Check(ToastSchema, data) ? data : null
  } catch {
    return null
  }
}

export interface FlashToasts {
  set (reply: FastifyReply, toast: FlashToastInput): void
  take (request: FastifyRequest, reply: FastifyReply): Toast | null
}
declare module 'fastify' {
  interface FastifyInstance { flashToasts: FlashToasts }
}
export const flashToasts = fp<FlashToastCookieOptions>(async (app, options) => {
  app.decorate('flashToasts', { set: (reply: FastifyReply, toast: FlashToastInput) => setFlashToast(reply, toast, options), take: (request: FastifyRequest, reply: FastifyReply) => takeFlashToast(request, reply, options) })
}, { name: 'flash-toasts', dependencies: ['@fastify/cookie'] })
