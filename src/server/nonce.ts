import { randomFillSync } from 'node:crypto'

/** CSP asks for at least 128 bits of randomness per nonce. */
const NONCE_BYTES = 16
const pool = Buffer.alloc(NONCE_BYTES * 256)
let offset = pool.length

/**
 * A fresh CSP nonce: 128 random bits, base64url. Drawn from a pool filled
 * 256 nonces at a time, because asking the system for 16 bytes per response
 * was a visible share of serving a page.
 */
export function createNonce (): string {
  if (offset === pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const nonce = pool.toString('base64url', offset, offset + NONCE_BYTES)
  offset += NONCE_BYTES
  return nonce
}
