import type { FastifyRequest } from 'fastify'
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type { HoneyProps } from '../../shared/page-data.js'
import { ClientError } from '../errors.js'

/** Spam protection: a field bots fill in and the render time, authenticated; the secret is shared by every instance. */

const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
const TAG_BYTES = 16
/** iv | ciphertext | tag is under 64 characters: anything far longer is not ours. */
const MAX_TOKEN_CHARS = 256
const BASE64URL = /^[A-Za-z0-9_-]+$/
const DIGITS = /^\d{1,16}$/
/** One token serves every render within this window, so rendering a page does not pay for encryption. */
const TOKEN_REUSE_MS = 1000

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
  /** Newest first: the first encrypts, each decrypts, so instances with old and new lists accept each other's forms. */
  secret: string | readonly string[]
  nameFieldName?: string
  validFromFieldName?: string
  /** Refused sooner than this after rendering, or later than maxAgeMs (a person fills a form in minutes). */
  minDelayMs?: number
  maxAgeMs?: number
  clockSkewMs?: number
  timing?: boolean
  now?: () => number
}

export class Honeypot {
  readonly nameFieldName: string
  readonly validFromFieldName: string
  readonly #keys: readonly Buffer[]
  readonly #minDelayMs: number
  readonly #maxAgeMs: number
  readonly #clockSkewMs: number
  readonly #timing: boolean
  readonly #now: () => number
  /** By form: one entry per screen that is rendered, so bounded by the screen registry. */
  readonly #issued = new Map<string, { at: number, token: string }>()

  constructor (options: HoneypotOptions) {
    const {
      secret,
      nameFieldName = 'name__confirm',
      validFromFieldName = 'from__confirm',
      minDelayMs = 2000,
      maxAgeMs = 60 * 60 * 1000,
      clockSkewMs = 5000,
      timing = true,
      now = Date.now
    } = options
    const secrets = typeof secret === 'string' ? [secret] : secret
    if (!Array.isArray(secrets) || secrets.length === 0 || !secrets.every((entry) => typeof entry === 'string' && entry.length > 0)) {
      throw new TypeError('Honeypot: `secret` must be a non-empty string or list of them (set HONEYPOT_SECRET).')
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
    // The secret is high-entropy (≥ 32 characters), so HKDF rather than a slow KDF.
    this.#keys = secrets.map((entry) => Buffer.from(hkdfSync('sha256', entry, 'agent-stack', 'honeypot valid-from v1', 32)))
    this.#minDelayMs = minDelayMs
    this.#maxAgeMs = maxAgeMs
    this.#clockSkewMs = clockSkewMs
    this.#timing = timing
    this.#now = now
  }

  /** Sealed with `form` (the screen's id) as additional data: it opens for that form's route only (docs/decisions/honeypot-tokens.md). */
  getInputProps (form = ''): HoneyProps {
    const now = Math.floor(this.#now())
    const issued = this.#issued.get(form)
    // A clock that went back (tests, NTP) issues afresh rather than hand out a timestamp from its future.
    const token = issued && now >= issued.at && now - issued.at < TOKEN_REUSE_MS ? issued.token : this.#issue(form, now)
    return {
      nameFieldName: this.nameFieldName,
      validFromFieldName: this.validFromFieldName,
      encryptedValidFrom: token
    }
  }

  /** Throws HoneypotError, and nothing else, whatever `fields` is. */
  check (fields: Record<string, unknown> | null | undefined | unknown, form = ''): void {
    const honey = readField(fields, this.nameFieldName)
    if (honey === undefined) throw new HoneypotError('HONEYPOT_MISSING')
    // Exactly the empty string: a repeated field (array) or anything else counts as filled.
    if (honey !== '') throw new HoneypotError('HONEYPOT_FILLED')

    const token = readField(fields, this.validFromFieldName)
    if (token === undefined || token === '') throw new HoneypotError('TIMESTAMP_MISSING')
    const validFrom = this.#decrypt(token, form)
    if (validFrom === null) throw new HoneypotError('TIMESTAMP_INVALID')
    if (!this.#timing) return

    const now = this.#now()
    if (validFrom > now + this.#clockSkewMs) throw new HoneypotError('TIMESTAMP_FUTURE')
    if (now - validFrom < this.#minDelayMs) throw new HoneypotError('TOO_FAST')
    if (now - validFrom > this.#maxAgeMs) throw new HoneypotError('EXPIRED')
  }

  #issue (form: string, now: number): string {
    const token = this.#encrypt(String(now), form)
    this.#issued.set(form, { at: now, token })
    return token
  }

  #encrypt (plaintext: string, form: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv(ALGORITHM, this.#keys[0] as Buffer, iv)
    cipher.setAAD(Buffer.from(form, 'utf8'))
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url')
  }

  #decrypt (token: unknown, form: string): number | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token)) return null
    const bytes = Buffer.from(token, 'base64url')
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null
    for (const key of this.#keys) {
      const plaintext = open(key, bytes, form)
      if (plaintext === null) continue
      if (!DIGITS.test(plaintext)) return null
      const timestamp = Number(plaintext)
      return Number.isSafeInteger(timestamp) ? timestamp : null
    }
    return null
  }
}

function open (key: Buffer, bytes: Buffer, form: string): string | null {
  try {
    const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
    decipher.setAAD(Buffer.from(form, 'utf8'))
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final()
    ]).toString('utf8')
  } catch {
    return null
  }
}

/** `form`: the id of the screen that shows the form, whose token alone it accepts. */
export function assertHuman (request: FastifyRequest, form: string): void {
  request.server.honeypot.check(request.body, form)
}

/** An own property of a parsed body, or undefined; guarded, since only HoneypotError may be thrown. */
function readField (fields: unknown, name: string): unknown {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined
  try {
    return Object.hasOwn(fields, name) ? (fields as Record<string, unknown>)[name] : undefined
  } catch {
    return undefined
  }
}
