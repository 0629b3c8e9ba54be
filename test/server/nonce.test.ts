import t from 'tap'
import { createNonce } from '../../src/server/security/nonce.js'

t.test('every nonce is 128 random bits in base64url, and none repeats across pool refills', async (t) => {
  const seen = new Set<string>()
  // Several times the pool, so refills are crossed.
  for (let index = 0; index < 2000; index++) {
    const nonce = createNonce()
    t.ok(/^[A-Za-z0-9_-]{22}$/.test(nonce), 'base64url of 16 bytes') || t.bailout(nonce)
    seen.add(nonce)
  }
  t.equal(seen.size, 2000, 'no nonce handed out twice')
})
