import t, { type Test } from 'tap'
import { serializeForScript } from '../../src/shared/serialize.js'

/** What the browser does with the output: it runs it as JavaScript inside a <script>. */
const evaluate = (source: string): unknown => new Function(`return ${source}`)()

/** Sequences that, raw inside an inline <script>, would end it, open a comment or break the line. */
const FORBIDDEN = ['</script', '<!--', '<', '>', '\u2028', '\u2029']

/** A printable name for test messages: a raw U+2028 would break the TAP output itself. */
const printable = (text: string) => JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

function assertInert (t: Test, value: unknown) {
  const serialized = serializeForScript(value)
  for (const sequence of FORBIDDEN) {
    t.notOk(serialized.toLowerCase().includes(sequence), `no raw ${printable(sequence)} in ${printable(serialized.slice(0, 60))}`)
  }
  t.same(JSON.parse(serialized), value, 'JSON.parse gives the value back')
  t.same(evaluate(serialized), value, 'a JavaScript parser gives the value back')
}

const NASTY_STRINGS = [
  '</script><script>alert(1)</script>',
  '</SCRIPT><ScRiPt>alert(1)</sCrIpT>',
  '</script\t>',
  '<!-- <script>',
  '-->',
  '<![CDATA[ ]]>',
  '\u2028\u2029',
  'line\u2028separator and paragraph\u2029separator',
  '&lt;/script&gt; &amp; &#60;',
  '"\'`${1+1}\\',
  '\\u003c/script>',
  '\u0000\u0001\u001f\u007f',
  '\r\n\t\b\f\v',
  '\ud800 lone high surrogate',
  'lone low surrogate \udfff',
  '😀 𝌆 ﷽ \u202e right-to-left override',
  '\ufeff byte order mark',
  'hasOwnProperty',
  'prototype',
  'constructor',
  ''
]

t.test('serializeForScript escapes every character that could end the script or break the line', async (t) => {
  t.equal(serializeForScript('<>&\u2028\u2029'), '"\\u003c\\u003e\\u0026\\u2028\\u2029"')
})

t.test('every nasty string round-trips and stays inert, as a value, an object key and inside arrays', async (t) => {
  for (const nasty of NASTY_STRINGS) {
    assertInert(t, nasty)
    assertInert(t, { [nasty]: nasty, nested: { list: [nasty, 1, null, true] } })
  }
})

t.test('an object with a "__proto__" key is refused, since a script literal would turn it into a prototype', async (t) => {
  // JSON.parse makes "__proto__" an own property; the same text run as JavaScript sets the prototype instead.
  const fromUserInput = JSON.parse('{"nested":{"__proto__":{"isAdmin":true}}}')
  t.throws(() => serializeForScript(fromUserInput), { name: 'TypeError', message: /"__proto__"/ })
  t.equal(serializeForScript({ key: '__proto__' }), '{"key":"__proto__"}', 'as a value it is an ordinary string')
  t.equal(serializeForScript({ 'a"__proto__': 1, b: 'x"__proto__":' }), '{"a\\"__proto__":1,"b":"x\\"__proto__\\":"}', 'and so in a longer key, or a value that reads like one')
})

t.test('every kind of JSON value round-trips', async (t) => {
  const values: unknown[] = [
    null, true, false, 0, -1, 1.5, 1e21, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE,
    '', 'plain', [], {}, [[[]]], { a: { b: { c: [1, '2', { d: null }] } } }
  ]
  for (const value of values) assertInert(t, value)
})

/** A small seeded generator, so that a failure names a seed that reproduces it. */
function random (seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x ^= x + Math.imul(x ^ (x >>> 7), 61 | x)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const FRAGMENTS = ['<', '>', '/', '!', '-', '&', 'script', 'SCRIPT', '</', '<!--', '-->', '"', "'", '\\', '\u2028', '\u2029', '\u0000', '\n', '\ud83d', '\ude00', 'é', ' ', 'x']

function randomString (next: () => number): string {
  let text = ''
  const length = Math.floor(next() * 12)
  for (let i = 0; i < length; i++) text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]
  return text
}

function randomValue (next: () => number, depth = 0): unknown {
  const kind = Math.floor(next() * (depth > 3 ? 4 : 6))
  switch (kind) {
    case 0: return randomString(next)
    case 1: return Math.round((next() - 0.5) * 1e6) / 100
    case 2: return next() < 0.5
    case 3: return null
    case 4: return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1))
    default: return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [randomString(next), randomValue(next, depth + 1)]))
  }
}

t.test('property: 500 random values built from hostile fragments round-trip and stay inert', async (t) => {
  const seed = 20_260_101
  const next = random(seed)
  let failures = 0
  for (let run = 0; run < 500 && failures === 0; run++) {
    const value = randomValue(next)
    const serialized = serializeForScript(value)
    const raw = FORBIDDEN.find((sequence) => serialized.toLowerCase().includes(sequence))
    const roundTrips = JSON.stringify(JSON.parse(serialized)) === JSON.stringify(value) &&
      JSON.stringify(evaluate(serialized)) === JSON.stringify(value)
    if (raw !== undefined || !roundTrips) {
      failures++
      t.fail(`seed ${seed}, run ${run}: ${printable(JSON.stringify(value))} → ${printable(serialized)}`, { raw: raw && printable(raw), roundTrips })
    }
  }
  t.equal(failures, 0, 'every generated value is inert and round-trips')
})
