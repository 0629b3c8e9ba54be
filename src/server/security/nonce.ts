import { randomFillSync } from 'node:crypto'

/** CSP asks for at least 128 bits of randomness per nonce. */
const NONCE_BYTES = 16
const pool = Buffer.alloc(NONCE_BYTES * 256)
let offset = pool.length

/** Drawn from a pool: a system call per response is costly (docs/performance.md). */
export function createNonce (): string {
  if (offset === pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const nonce = pool.toString('base64url', offset, offset + NONCE_BYTES)
  offset += NONCE_BYTES
  return nonce
}
