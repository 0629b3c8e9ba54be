import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import { Value } from 'typebox/value'
import type { Toast, ToastType } from '../../shared/page-data.js'
import { ToastSchema } from '../../shared/toast-schema.js'
import type { CookieAttributes } from './attributes.js'
import { speculationOf } from '../http/speculation.js'

export const FLASH_TOAST_COOKIE = 'en_toast'
/** Seconds: enough for a redirect on a slow connection. */
const MAX_AGE = 60

/** Signed with its cookie's name and expiry, so a captured value cannot be replayed later or as another cookie. */
const SignedSchema = Type.Object({
  name: Type.String(),
  expires: Type.Integer(),
  toast: ToastSchema
}, { additionalProperties: false })

const CONTROL_CHARACTER = /\p{Cc}/gu
/** In a /u expression, a surrogate alone: one of a pair is read as part of its code point. */
const LONE_SURROGATE = /\p{Cs}/gu
const displayable = (text: string) => text.replace(CONTROL_CHARACTER, ' ').replace(LONE_SURROGATE, '\ufffd')

export interface FlashToastInput {
  type?: ToastType
  title?: string
  description: string
  id?: string
}

export interface FlashToasts {
  readonly cookieName: string
  // Throws TypeError for a toast refused when read back; control characters and lone surrogates are replaced instead.
  set (reply: FastifyReply, toast: FlashToastInput): Toast
  /** Reads the toast once and clears it; anything tampered, expired or malformed is null. */
  take (request: FastifyRequest, reply: FastifyReply): Toast | null
  /** Whether the request carries a toast cookie, read or not: a page asked for speculatively must then not be sent. */
  waiting (request: FastifyRequest): boolean
  /** Whether a toast was set while answering a speculation, and so held back: the answer must then be refused. */
  heldBack (reply: FastifyReply): boolean
}

export interface FlashToastOptions {
  /** `__Host-` needs Secure and Path=/, which the app's give in production. */
  attributes: CookieAttributes
  now?: () => number
}

export function createFlashToasts ({ attributes, now = Date.now }: FlashToastOptions): FlashToasts {
  const cookieName = attributes.secure ? `__Host-${FLASH_TOAST_COOKIE}` : FLASH_TOAST_COOKIE
  // A page asked for ahead may never be shown: its toast would show on whatever page comes next (docs/navigation.md).
  const heldBack = new WeakSet<FastifyReply>()
  return {
    cookieName,
    set (reply, toast) {
      const value: Toast = {
        id: toast.id ?? randomUUID(),
        type: toast.type ?? 'message',
        ...(toast.title === undefined ? {} : { title: displayable(toast.title) }),
        description: displayable(toast.description)
      }
      if (!Value.Check(ToastSchema, value)) {
        const [first] = Value.Errors(ToastSchema, value)
        throw new TypeError(`setFlashToast: invalid toast${first ? ` (${first.instancePath || '/'} ${first.message})` : ''}.`)
      }
      const signed: Static<typeof SignedSchema> = { name: cookieName, expires: Math.floor(now() / 1000) + MAX_AGE, toast: value }
      // No size check: ToastSchema bounds every field, so the largest toast it accepts fits the 4096 bytes browsers keep
      // (test/server/flash-toast.test.ts holds that).
      const encoded = Buffer.from(JSON.stringify(signed), 'utf8').toString('base64url')
      if (speculationOf(reply.request) === 'none') reply.setCookie(cookieName, encoded, { ...attributes, maxAge: MAX_AGE, signed: true })
      else heldBack.add(reply)
      return value
    },
    take (request, reply) {
      const raw = request.cookies[cookieName]
      if (raw === undefined) return null
      // Cleared before it is checked, so a tampered or expired value is not sent back again.
      reply.clearCookie(cookieName, attributes)
      try {
        const unsigned = request.unsignCookie(raw)
        if (!unsigned.valid) return null
        const data: unknown = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8'))
        if (!Value.Check(SignedSchema, data) || data.name !== cookieName || data.expires * 1000 <= now()) return null
        return data.toast
      } catch {
        return null
      }
    },
    waiting (request) {
      return request.cookies[cookieName] !== undefined
    },
    heldBack (reply) {
      return heldBack.has(reply)
    }
  }
}
