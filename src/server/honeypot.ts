import type { FastifyRequest } from 'fastify'
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type { HoneyProps } from '../shared/page-data.js'
import { ClientError } from './errors.js'

/**
 * Spam protection for forms: an empty field that people never see (bots fill
 * it in) plus the time the form was rendered, encrypted so it cannot be forged.
 *
 * Modelled on remix-utils' Honeypot, minus two of its holes
 * (see /work/shared/PITFALLS.md, "Toasts and honeypot"):
 * - it passes silently when the fields are absent; here both are required;
 * - its default seed is random per process, so a form rendered by one instance
 *   fails on another or after a restart; here the secret is required and comes
 *   from configuration (HONEYPOT_SECRET).
 * It also authenticates the timestamp (AES-256-GCM) instead of only encrypting it.
 */

const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
const TAG_BYTES = 16
/** iv | ciphertext of a ≤ 16-digit timestamp | tag, in base64url, is under 64 chars; anything far longer is not ours. */
const MAX_TOKEN_CHARS = 256
const BASE64URL = /^[A-Za-z0-9_-]+$/
const DIGITS = /^\d{1,16}$/
/**
 * Encrypting costs a visible share of a page's render time, so one token
 * serves every page rendered within this window. Its timestamp is the
 * window's first render: a form can pass the too-fast check up to this much
 * sooner, which no human notices and no bot gains from.
 */
const TOKEN_REUSE_MS = 1000

/** The ways a submission is refused; their status and messages are in the error catalogue. */
export const HONEYPOT_CODES = ['HONEYPOT_MISSING', 'HONEYPOT_FILLED', 'TIMESTAMP_MISSING', 'TIMESTAMP_INVALID', 'TIMESTAMP_FUTURE', 'TOO_FAST', 'EXPIRED'] as const

export type HoneypotErrorCode = typeof HONEYPOT_CODES[number]

export class HoneypotError extends ClientError {
  declare readonly code: HoneypotErrorCode

  constructor (code: HoneypotErrorCode) {
    super(code)
    this.name = 'HoneypotError'
  }
}

export interface HoneypotOptions {
  /** Shared by every instance, so a form rendered by one is accepted by all. */
  secret: string
  nameFieldName?: string
  validFromFieldName?: string
  /** Submissions sooner than this after rendering are refused. 0 turns it off. Default 2 s. */
  minDelayMs?: number
  /** Forms older than this are refused. Infinity turns it off. Default 24 h. */
  maxAgeMs?: number
  /** Tolerated clock difference between instances for timestamps "from the future". Default 5 s. */
  clockSkewMs?: number
  /** false skips every time comparison (too fast, expired, future); the timestamp must still decrypt. */
  timing?: boolean
  now?: () => number
}

export class Honeypot {
  readonly nameFieldName: string
  readonly validFromFieldName: string
  readonly #key: Buffer
  readonly #minDelayMs: number
  readonly #maxAgeMs: number
  readonly #clockSkewMs: number
  readonly #timing: boolean
  readonly #now: () => number
  #issued: { at: number, token: string } | undefined

  constructor (options: HoneypotOptions) {
    const {
      secret,
      nameFieldName = 'name__confirm',
      validFromFieldName = 'from__confirm',
      minDelayMs = 2000,
      maxAgeMs = 24 * 60 * 60 * 1000,
      clockSkewMs = 5000,
      timing = true,
      now = Date.now
    } = options
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new TypeError('Honeypot: `secret` must be a non-empty string (set HONEYPOT_SECRET).')
    }
    if (!nameFieldName || !validFromFieldName || nameFieldName === validFromFieldName) {
      throw new TypeError('Honeypot: the two field names must be non-empty and different.')
    }
    for (const [name, value] of Object.entries({ minDelayMs, maxAgeMs, clockSkewMs })) {
      if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
        throw new RangeError(`Honeypot: \`${name}\` must be a number ≥ 0.`)
      }
    }
    this.nameFieldName = nameFieldName
    this.validFromFieldName = validFromFieldName
    // Derived once: HKDF is cheap, but there is no reason to repeat it per request.
    // The secret is already high-entropy (≥ 32 chars, checked in env.ts), so HKDF rather than a slow KDF.
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'agent-stack', 'honeypot valid-from v1', 32))
    this.#minDelayMs = minDelayMs
    this.#maxAgeMs = maxAgeMs
    this.#clockSkewMs = clockSkewMs
    this.#timing = timing
    this.#now = now
  }

  /** The props for <HoneypotInputs>: field names and the encrypted render time. */
  getInputProps (): HoneyProps {
    const now = Math.floor(this.#now())
    const issued = this.#issued
    // A clock that went back (tests, NTP) issues afresh rather than hand out a timestamp from its future.
    const token = issued && now >= issued.at && now - issued.at < TOKEN_REUSE_MS
      ? issued.token
      : (this.#issued = { at: now, token: this.#encrypt(String(now)) }).token
    return {
      nameFieldName: this.nameFieldName,
      validFromFieldName: this.validFromFieldName,
      encryptedValidFrom: token
    }
  }

  /**
   * Throws HoneypotError when the submission looks automated or the form is
   * stale; returns quietly otherwise. Throws nothing else, whatever `fields` is.
   * Takes `unknown` so a route can pass `request.body` as it comes.
   */
  check (fields: Record<string, unknown> | null | undefined | unknown): void {
    const honey = readField(fields, this.nameFieldName)
    if (honey === undefined) throw new HoneypotError('HONEYPOT_MISSING')
    // Exactly the empty string: a repeated field (array) or anything else counts as filled.
    if (honey !== '') throw new HoneypotError('HONEYPOT_FILLED')

    const token = readField(fields, this.validFromFieldName)
    if (token === undefined || token === '') throw new HoneypotError('TIMESTAMP_MISSING')
    const validFrom = this.#decrypt(token)
    if (validFrom === null) throw new HoneypotError('TIMESTAMP_INVALID')
    if (!this.#timing) return

    const now = this.#now()
    if (validFrom > now + this.#clockSkewMs) throw new HoneypotError('TIMESTAMP_FUTURE')
    if (now - validFrom < this.#minDelayMs) throw new HoneypotError('TOO_FAST')
    if (now - validFrom > this.#maxAgeMs) throw new HoneypotError('EXPIRED')
  }

  #encrypt (plaintext: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv(ALGORITHM, this.#key, iv)
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url')
  }

  /** The timestamp, or null for anything that is not an untampered value of ours. */
  #decrypt (token: unknown): number | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token)) return null
    const bytes = Buffer.from(token, 'base64url')
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null
    try {
      const decipher = createDecipheriv(ALGORITHM, this.#key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
      const plaintext = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final() // throws when the tag does not match: wrong secret or tampered
      ]).toString('utf8')
      if (!DIGITS.test(plaintext)) return null
      const timestamp = Number(plaintext)
      return Number.isSafeInteger(timestamp) ? timestamp : null
    } catch {
      return null
    }
  }
}

/**
 * The check as one call at the top of a form route: `assertHuman(request)`.
 * A refusal throws HoneypotError, which the error handler answers and logs
 * with its code; the client sees only the message, and one message covers
 * several codes, so a bot learns nothing about which check it failed.
 */
export function assertHuman (request: FastifyRequest): void {
  request.server.honeypot.check(request.body)
}

/**
 * An own property of a parsed body, or undefined. Own only, so `toString` or
 * `__proto__` never count as submitted; guarded, because a body could be a
 * Proxy or carry a throwing getter and we promise to throw only HoneypotError.
 */
function readField (fields: unknown, name: string): unknown {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined
  try {
    return Object.hasOwn(fields, name) ? (fields as Record<string, unknown>)[name] : undefined
  } catch {
    return undefined
  }
}
