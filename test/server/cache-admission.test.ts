import t from 'tap'
import { hashKey, SecondSighting } from '../../src/server/rendering/cache-admission.js'
import { RenderCache, toTemplate } from '../../src/server/rendering/render-cache.js'

const FILLINGS = { nonce: 'NONCE-0123456789abcdef', honeypotToken: 'TOKEN-0123456789abcdefghijklmnop' }

t.test('a key is admitted on its second sighting, not its first', async (t) => {
  const sightings = new SecondSighting(8)
  t.equal(sightings.seen('/a'), false, 'first sighting')
  t.equal(sightings.seen('/b'), false)
  t.equal(sightings.seen('/a'), true, 'second sighting')
  t.equal(sightings.seen('/a'), true, 'and every one after')
})

t.test('it remembers a bounded number of keys seen once: at least half its capacity, at most all of it', async (t) => {
  const sightings = new SecondSighting(8)
  sightings.seen('first')
  for (let index = 0; index < 4; index++) sightings.seen(`other-${index}`)
  t.equal(sightings.seen('first'), true, 'still remembered after capacity / 2 other keys')

  const forgetful = new SecondSighting(8)
  forgetful.seen('first')
  for (let index = 0; index < 8; index++) forgetful.seen(`other-${index}`)
  t.equal(forgetful.seen('first'), false, 'forgotten after capacity other keys: the memory does not grow')
  t.throws(() => new SecondSighting(1), RangeError)
})

t.test('the hash is stable and tells apart keys that differ in one character', async (t) => {
  t.equal(hashKey('["/?a=1"]'), hashKey('["/?a=1"]'))
  const hashes = new Set<number>()
  for (let index = 0; index < 10_000; index++) hashes.add(hashKey(`["/?utm_source=${index}"]`))
  t.equal(hashes.size, 10_000, 'no collision among 10 000 near-identical keys')
  t.ok([...hashes].every((hash) => Number.isSafeInteger(hash) && hash >= 0))
})

t.test('the render cache does not admit keys larger than it keeps', async (t) => {
  const cache = new RenderCache({ maxKeyChars: 10 })
  t.equal(cache.admits('k'.repeat(11)), false)
  t.equal(cache.admits('k'.repeat(11)), false, 'not even the second time')
  t.equal(cache.admits('short'), false)
  t.equal(cache.admits('short'), true)
})

/**
 * 90 % of requests for popular documents, 10 % for addresses never asked for
 * again, through a cache that holds the popular set with 10 % room to
 * spare: what a scanner or `?utm_*` variations do to a busy site.
 */
function popularHitRatio (admit: boolean): number {
  const popular = 200
  const documentChars = 1000
  const cache = new RenderCache({ maxChars: 220 * (documentChars + 10) })
  const template = toTemplate('x'.repeat(documentChars), FILLINGS)
  // A fixed pseudo-random sequence, so the figure is the same on every run.
  let seed = 42
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
  let hits = 0
  let popularRequests = 0
  for (let request = 0; request < 50_000; request++) {
    const unique = random() < 0.1
    const key = unique ? `/?utm_id=${request}` : `/page/${Math.floor(random() * popular)}`
    const found = cache.get(key)
    if (!unique && request >= 5_000) {
      popularRequests++
      if (found) hits++
    }
    if (!found && (!admit || cache.admits(key))) cache.set(key, template)
  }
  return hits / popularRequests
}

t.test('with 10 % of requests for addresses seen once, the popular documents stay cached', async (t) => {
  const admitted = popularHitRatio(true)
  const plain = popularHitRatio(false)
  t.comment(`popular hit ratio: ${(admitted * 100).toFixed(1)} % with admission on second sighting, ${(plain * 100).toFixed(1)} % with plain LRU`)
  t.ok(admitted > 0.95, `above 95 % with admission (${(admitted * 100).toFixed(1)} %)`)
  t.ok(plain < 0.95, `a plain LRU cache loses them to the flood (${(plain * 100).toFixed(1)} %)`)
})
