import t from 'tap'
import { Doorkeeper, FrequencySketch, hashKey } from '../../src/server/rendering/cache-admission.js'
import { RenderCache, toTemplate } from '../../src/server/rendering/render-cache.js'

const FILLINGS = { nonce: 'NONCE-0123456789abcdef', honeypotToken: 'TOKEN-0123456789abcdefghijklmnop' }

t.test('the sketch counts requests per key, up to fifteen, and halves every count once it has counted enough', async (t) => {
  const sketch = new FrequencySketch(64)
  const add = (key: string) => sketch.add(hashKey(key))
  const frequency = (key: string) => sketch.frequency(hashKey(key))
  t.same([add('/a'), add('/b'), add('/a'), add('/a')], [1, 1, 2, 3])
  t.equal(frequency('/a'), 3)
  t.equal(frequency('/never'), 0)
  for (let index = 0; index < 20; index++) add('/hot')
  t.equal(frequency('/hot'), 15, 'counters stop at fifteen')
  // 64 counters a row × 10 increments: the 640th addition halves.
  for (let index = 24; index < 639; index++) add(`/other-${index}`)
  t.equal(frequency('/hot'), 15)
  add('/last')
  t.equal(frequency('/hot'), 7, 'aged: what was popular long ago gives way')
  t.throws(() => new FrequencySketch(1), RangeError)
})

t.test('a key is admitted on its second request, not its first', async (t) => {
  const cache = new RenderCache()
  t.equal(cache.admits('/a'), false, 'first request')
  t.equal(cache.admits('/b'), false)
  t.equal(cache.admits('/a'), true, 'second request')
  t.equal(cache.admits('/a'), true, 'and every one after')
})

t.test('the doorkeeper knows a key from its second sighting, and forgets every key at once when full', async (t) => {
  const doorkeeper = new Doorkeeper(3)
  t.same([doorkeeper.knows(1), doorkeeper.knows(2), doorkeeper.knows(1)], [false, false, true])
  doorkeeper.knows(3)
  t.equal(doorkeeper.knows(4), false, 'a fourth key, past its capacity of three')
  t.equal(doorkeeper.knows(1), false, 'forgotten with the others')
  t.throws(() => new Doorkeeper(0), RangeError)
})

t.test('under a flood of one-off addresses, none is admitted, however full the sketch', async (t) => {
  const cache = new RenderCache()
  const key = (index: number) => JSON.stringify([{ path: `/?unique=${index}`, theme: 'dark' }, { id: 'home' }])
  // Ten counts a counter on average, where the sketch halves: a one-off key's four counters are rarely all zero.
  for (let index = 0; index < 150_000; index++) cache.admits(key(index))
  let admitted = 0
  for (let index = 150_000; index < 160_000; index++) if (cache.admits(key(index))) admitted++
  t.equal(admitted, 0)
  t.equal(cache.admits(key(159_999)), true, 'while one asked for again is')
})

t.test('a client asking twice for each of 300 long addresses does not evict a page asked for more', async (t) => {
  const template = toTemplate('x'.repeat(1000), FILLINGS)
  const cache = new RenderCache({ maxChars: 20 * 1100 })
  for (let request = 0; request < 5; request++) if (!cache.get('/') && cache.admits('/')) cache.set('/', template)
  t.ok(cache.get('/'), 'the home page is cached')
  for (let address = 0; address < 300; address++) {
    const key = `/?${'q'.repeat(500)}=${address}`
    for (let ask = 0; ask < 2; ask++) if (!cache.get(key) && cache.admits(key)) cache.set(key, template)
  }
  t.ok(cache.get('/'), 'and still is')
  t.ok(cache.size > 1, 'while the newcomers still take the room the home page leaves')
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
/** The least recently used document goes first, whatever it is: the baseline admission improves on. */
function plainLru (capacity: number) {
  const entries = new Set<string>()
  return {
    get: (key: string) => entries.delete(key) && Boolean(entries.add(key)),
    set: (key: string) => {
      entries.add(key)
      for (const oldest of entries) if (entries.size > capacity) entries.delete(oldest)
    },
    admits: () => true
  }
}

function popularHitRatio (admit: boolean, uniqueAsks = 1): number {
  const popular = 200
  const documentChars = 1000
  const cache = admit ? new RenderCache({ maxChars: 220 * (documentChars + 10) }) : plainLru(220)
  const template = toTemplate('x'.repeat(documentChars), FILLINGS)
  // A fixed pseudo-random sequence, so the figure is the same on every run.
  let seed = 42
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
  let hits = 0
  let popularRequests = 0
  for (let request = 0; request < 50_000; request++) {
    const unique = random() < 0.1
    const key = unique ? `/?utm_id=${request}` : `/page/${Math.floor(random() * popular)}`
    for (let ask = 0; ask < (unique ? uniqueAsks : 1); ask++) {
      const found = cache.get(key)
      if (!unique && request >= 5_000) {
        popularRequests++
        if (found) hits++
      }
      if (!found && cache.admits(key)) cache.set(key, template)
    }
  }
  return hits / popularRequests
}

t.test('with 10 % of requests for addresses seen once, the popular documents stay cached', async (t) => {
  const admitted = popularHitRatio(true)
  const plain = popularHitRatio(false)
  t.comment(`popular hit ratio: ${(admitted * 100).toFixed(1)} % with TinyLFU admission, ${(plain * 100).toFixed(1)} % with plain LRU`)
  t.ok(admitted > 0.95, `above 95 % with admission (${(admitted * 100).toFixed(1)} %)`)
  t.ok(plain < 0.95, `a plain LRU cache loses them to the flood (${(plain * 100).toFixed(1)} %)`)
  const askedTwice = popularHitRatio(true, 2)
  t.comment(`popular hit ratio when each one-off address is asked for twice in a row: ${(askedTwice * 100).toFixed(1)} %`)
  t.ok(askedTwice > 0.95, `asking twice does not get past admission (${(askedTwice * 100).toFixed(1)} %)`)
})
