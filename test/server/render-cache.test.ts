import t from 'tap'
import { fillTemplate, RenderCache, toTemplate, type Fillings } from '../../src/server/rendering/render-cache.js'

const FILLED: Fillings = { nonce: 'NONCE-one-0123456789ab', honeypotToken: 'TOKEN-one-0123456789abcdefghijklmnop' }
const OTHER: Fillings = { nonce: 'NONCE-two-abcdefghijkl', honeypotToken: 'TOKEN-two-zyxwvutsrqponmlkjihgfedcba' }

const DOCUMENT = `<script nonce="${FILLED.nonce}">window.__PAGE_DATA__={"token":"${FILLED.honeypotToken}"}</script>` +
  `<input value="${FILLED.honeypotToken}"><script type="module" nonce="${FILLED.nonce}" src="/a.js"></script>`

t.test('a template refilled with the values it was cut from is the document it came from', async (t) => {
  const template = toTemplate(DOCUMENT, FILLED)
  t.equal(template.slots.length, 4, 'every occurrence of both values is a slot')
  t.same(template.slots, ['nonce', 'honeypotToken', 'honeypotToken', 'nonce'], 'in document order')
  t.equal(fillTemplate(template, FILLED).toString(), DOCUMENT)
})

t.test('filled with another response\'s values, none of the first ones remain', async (t) => {
  const html = fillTemplate(toTemplate(DOCUMENT, FILLED), OTHER).toString()
  t.equal(html, DOCUMENT.replaceAll(FILLED.nonce, OTHER.nonce).replaceAll(FILLED.honeypotToken, OTHER.honeypotToken))
  t.notOk(html.includes(FILLED.nonce) || html.includes(FILLED.honeypotToken))
})

t.test('a document without the values is one literal part', async (t) => {
  const template = toTemplate('<p>plain</p>', FILLED)
  t.same(template, { parts: [Buffer.from('<p>plain</p>')], slots: [], chars: 12 })
  t.equal(fillTemplate(template, OTHER).toString(), '<p>plain</p>')
})

t.test('the cache returns what was stored under the same key, and nothing under another', async (t) => {
  const cache = new RenderCache()
  const template = toTemplate(DOCUMENT, FILLED)
  cache.set('a', template)
  t.equal(cache.get('a'), template)
  t.equal(cache.get('b'), undefined)
  cache.set('a', toTemplate('<p>newer</p>', FILLED))
  t.equal(cache.size, 1, 'storing a key again replaces its entry')
  t.same(cache.get('a')?.parts, [Buffer.from('<p>newer</p>')])
})

t.test('the cache holds at most maxChars, keys included, dropping the least recently used first', async (t) => {
  const page = (text: string) => toTemplate(text.padEnd(98, '.'), FILLED)
  // Each entry weighs 100 characters: a 2-character key and a 98-character document.
  const cache = new RenderCache({ maxChars: 300 })
  cache.set('k1', page('one'))
  cache.set('k2', page('two'))
  cache.set('k3', page('three'))
  t.equal(cache.size, 3, 'exactly at the bound: all kept')
  t.ok(cache.get('k1'), 'reading k1 makes it the most recently used')
  cache.set('k4', page('four'))
  t.equal(cache.size, 3)
  t.equal(cache.get('k2'), undefined, 'k2, the least recently used, went first')
  t.ok(cache.get('k1') && cache.get('k3') && cache.get('k4'), 'the others stay')
  const large = toTemplate('x'.repeat(298), FILLED)
  cache.set('k5', large)
  t.equal(cache.size, 3, 'a newcomer asked for less often than those it would push out is not kept (TinyLFU)')
  cache.admits('k5')
  cache.admits('k5')
  cache.set('k5', large)
  t.equal(cache.size, 1, 'asked for as often, a large entry pushes out as many as it needs')
  t.ok(cache.get('k5'))
})

t.test('what cannot fit or is keyed by too much data is not stored', async (t) => {
  const cache = new RenderCache({ maxChars: 100, maxKeyChars: 10 })
  cache.set('k', toTemplate('x'.repeat(100), FILLED))
  t.equal(cache.size, 0, 'larger than the whole cache')
  cache.set('k'.repeat(11), toTemplate('<p>small</p>', FILLED))
  t.equal(cache.size, 0, 'a key over maxKeyChars')
  cache.set('k'.repeat(10), toTemplate('<p>small</p>', FILLED))
  t.equal(cache.size, 1, 'a key at maxKeyChars is fine')
})

t.test('the cache counts its hits, misses and evictions, and holds what it says', async (t) => {
  const page = (text: string) => toTemplate(text.padEnd(98, '.'), FILLED)
  const cache = new RenderCache({ maxChars: 200 })
  t.same(cache.stats, { hits: 0, misses: 0, evictions: 0, entries: 0, chars: 0 })
  t.equal(cache.get('k1'), undefined)
  cache.set('k1', page('one'))
  cache.get('k1')
  cache.get('k1')
  cache.set('k2', page('two'))
  cache.set('k1', page('one again'))
  t.same(cache.stats, { hits: 2, misses: 1, evictions: 0, entries: 2, chars: 200 }, 'replacing an entry is no eviction')
  cache.set('k3', page('three'))
  cache.get('k2')
  t.same(cache.stats, { hits: 2, misses: 2, evictions: 1, entries: 2, chars: 200 }, 'k2 made room for k3')
})
