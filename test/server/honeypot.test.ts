import tap from 'tap'
import { ERRORS } from '../../src/server/errors.js'
import { Honeypot, HoneypotError, type HoneypotErrorCode, type HoneypotOptions } from '../../src/server/security/honeypot.js'

const SECRET = 'a-test-secret-that-is-at-least-32-characters-long'
const OTHER_SECRET = 'another-secret-that-is-at-least-32-characters-long'
const T0 = 1_750_000_000_000

/** A honeypot whose clock the test moves by hand. */
function build (options: Partial<HoneypotOptions> = {}) {
  const clock = { now: T0 }
  const honeypot = new Honeypot({ secret: SECRET, now: () => clock.now, ...options })
  return { honeypot, clock }
}

/** The body a person's browser would send for a form rendered with these props. */
function submission (honeypot: Honeypot, overrides: Record<string, unknown> = {}) {
  const props = honeypot.getInputProps()
  return { [props.nameFieldName]: '', [props.validFromFieldName]: props.encryptedValidFrom, ...overrides }
}

/** Asserts fn throws the HoneypotError for `code`, with its status and message. */
function assertRefused (t: Pick<typeof tap, 'type' | 'equal' | 'fail'>, fn: () => void, code: HoneypotErrorCode) {
  try {
    fn()
  } catch (error) {
    t.type(error, HoneypotError, `${code}: a HoneypotError`)
    const e = error as HoneypotError
    t.equal(e.code, code)
    t.equal(e.statusCode, 400)
    t.equal(e.message, ERRORS[code].message)
    t.equal(e.name, 'HoneypotError')
    return
  }
  t.fail(`expected ${code}, but the check passed`)
}

tap.test('input props: default names and an opaque value, shared for a second and then fresh', async t => {
  const { honeypot, clock } = build()
  const a = honeypot.getInputProps()
  t.equal(a.nameFieldName, 'name__confirm')
  t.equal(a.validFromFieldName, 'from__confirm')
  t.match(a.encryptedValidFrom, /^[A-Za-z0-9_-]+$/, 'base64url')
  t.notOk(a.encryptedValidFrom.includes(String(T0)), 'the timestamp is not readable')
  clock.now += 999
  t.equal(honeypot.getInputProps().encryptedValidFrom, a.encryptedValidFrom, 'pages rendered within the second share one token')
  clock.now += 1
  const b = honeypot.getInputProps()
  t.not(b.encryptedValidFrom, a.encryptedValidFrom, 'a new token once the second is over')
  clock.now -= 5000
  const c = honeypot.getInputProps()
  t.not(c.encryptedValidFrom, b.encryptedValidFrom, 'a clock that went back gets a new token, not one from its future')
  clock.now += 2000
  t.doesNotThrow(() => honeypot.check({ name__confirm: '', from__confirm: c.encryptedValidFrom }), 'that token holds the time it was issued')
})

tap.test('custom field names are used for rendering and checking', async t => {
  const { honeypot, clock } = build({ nameFieldName: 'website', validFromFieldName: 'rendered_at' })
  const body = submission(honeypot)
  t.same(Object.keys(body).sort(), ['rendered_at', 'website'])
  clock.now += 3000
  t.doesNotThrow(() => honeypot.check(body))
  assertRefused(t, () => honeypot.check({ name__confirm: '', from__confirm: body.rendered_at }), 'HONEYPOT_MISSING')
})

tap.test('a person’s submission after a few seconds passes', async t => {
  const { honeypot, clock } = build()
  const body = submission(honeypot)
  clock.now += 2000
  t.doesNotThrow(() => honeypot.check(body), 'exactly the minimum delay')
  clock.now += 60_000
  t.doesNotThrow(() => honeypot.check({ ...body, other: 'field' }), 'other fields are ignored')
  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, body)
  t.doesNotThrow(() => honeypot.check(nullProto), 'null-prototype bodies (as body parsers make) work')
})

tap.test('each failure has its code and message', async t => {
  const { honeypot, clock } = build()
  const body = submission(honeypot)
  clock.now += 5000

  // Regression: remix-utils passes when the fields are absent.
  assertRefused(t, () => honeypot.check(undefined), 'HONEYPOT_MISSING')
  assertRefused(t, () => honeypot.check(null), 'HONEYPOT_MISSING')
  assertRefused(t, () => honeypot.check({}), 'HONEYPOT_MISSING')
  assertRefused(t, () => honeypot.check({ from__confirm: body.from__confirm }), 'HONEYPOT_MISSING')
  assertRefused(t, () => honeypot.check({ ...body, name__confirm: undefined }), 'HONEYPOT_MISSING')

  assertRefused(t, () => honeypot.check({ ...body, name__confirm: 'Bob' }), 'HONEYPOT_FILLED')
  assertRefused(t, () => honeypot.check({ ...body, name__confirm: ' ' }), 'HONEYPOT_FILLED')
  assertRefused(t, () => honeypot.check({ ...body, name__confirm: ['', ''] }), 'HONEYPOT_FILLED')
  assertRefused(t, () => honeypot.check({ ...body, name__confirm: 0 }), 'HONEYPOT_FILLED')

  assertRefused(t, () => honeypot.check({ name__confirm: '' }), 'TIMESTAMP_MISSING')
  assertRefused(t, () => honeypot.check({ name__confirm: '', from__confirm: '' }), 'TIMESTAMP_MISSING')

  assertRefused(t, () => honeypot.check({ ...body, from__confirm: 'not-ours' }), 'TIMESTAMP_INVALID')
  assertRefused(t, () => honeypot.check({ ...body, from__confirm: String(T0) }), 'TIMESTAMP_INVALID')
  assertRefused(t, () => honeypot.check({ ...body, from__confirm: T0 }), 'TIMESTAMP_INVALID')
  assertRefused(t, () => honeypot.check({ ...body, from__confirm: [body.from__confirm] }), 'TIMESTAMP_INVALID')
})

tap.test('a tampered value is refused, whichever byte changed', async t => {
  const { honeypot, clock } = build()
  const body = submission(honeypot)
  clock.now += 5000
  const token = body.from__confirm as string
  const bytes = Buffer.from(token, 'base64url')
  for (let i = 0; i < bytes.length; i++) {
    const copy = Buffer.from(bytes)
    copy[i] = copy[i]! ^ 0x01
    assertRefused(t, () => honeypot.check({ ...body, from__confirm: copy.toString('base64url') }), 'TIMESTAMP_INVALID')
  }
  assertRefused(t, () => honeypot.check({ ...body, from__confirm: token.slice(0, -2) }), 'TIMESTAMP_INVALID')
  assertRefused(t, () => honeypot.check({ ...body, from__confirm: token + 'AA' }), 'TIMESTAMP_INVALID')
})

tap.test('timing: too fast, expired, from the future', async t => {
  const { honeypot, clock } = build()
  const body = submission(honeypot)

  assertRefused(t, () => honeypot.check(body), 'TOO_FAST')
  clock.now = T0 + 1999
  assertRefused(t, () => honeypot.check(body), 'TOO_FAST')

  clock.now = T0 + 24 * 60 * 60 * 1000
  t.doesNotThrow(() => honeypot.check(body), 'exactly the maximum age')
  clock.now += 1
  assertRefused(t, () => honeypot.check(body), 'EXPIRED')

  // Rendered by an instance whose clock runs ahead of ours.
  clock.now = T0 - 5000
  assertRefused(t, () => honeypot.check(body), 'TOO_FAST') // within the skew allowance: only "too fast"
  clock.now = T0 - 5001
  assertRefused(t, () => honeypot.check(body), 'TIMESTAMP_FUTURE')
})

tap.test('timing can be turned off', async t => {
  const off = build({ timing: false })
  const body = submission(off.honeypot)
  t.doesNotThrow(() => off.honeypot.check(body), 'immediately')
  off.clock.now = T0 + 365 * 24 * 60 * 60 * 1000
  t.doesNotThrow(() => off.honeypot.check(body), 'a year later')
  off.clock.now = T0 - 60_000
  t.doesNotThrow(() => off.honeypot.check(body), 'from the future')
  assertRefused(t, () => off.honeypot.check({ ...body, name__confirm: 'x' }), 'HONEYPOT_FILLED')
  assertRefused(t, () => off.honeypot.check({ ...body, from__confirm: 'garbage' }), 'TIMESTAMP_INVALID')

  const bounds = build({ minDelayMs: 0, maxAgeMs: Infinity })
  const body2 = submission(bounds.honeypot)
  t.doesNotThrow(() => bounds.honeypot.check(body2), 'minDelayMs: 0')
  bounds.clock.now += 10 * 365 * 24 * 60 * 60 * 1000
  t.doesNotThrow(() => bounds.honeypot.check(body2), 'maxAgeMs: Infinity')
})

tap.test('the secret is shared across instances, and only the secret', async t => {
  const clock = { now: T0 }
  const now = () => clock.now
  const renderer = new Honeypot({ secret: SECRET, now })
  const sibling = new Honeypot({ secret: SECRET, now })
  const stranger = new Honeypot({ secret: OTHER_SECRET, now })
  const body = submission(renderer)
  const fromSibling = submission(sibling)
  clock.now += 3000
  t.doesNotThrow(() => sibling.check(body), 'another instance (or a restart) with the same secret accepts it')
  t.doesNotThrow(() => renderer.check(fromSibling), 'and the other way round')
  assertRefused(t, () => stranger.check(body), 'TIMESTAMP_INVALID')
})

tap.test('garbage of any shape only ever throws HoneypotError', async t => {
  const { honeypot, clock } = build()
  const valid = submission(honeypot)
  clock.now += 5000
  const values: unknown[] = [
    undefined, null, true, false, 0, -1, NaN, Infinity, 1e308, 12345678901234567890n, Symbol('x'),
    '', ' ', 'x'.repeat(1_000_000), '%%%', '====', 'A', 'AAAA', '\u0000', '😀'.repeat(100), '<script>',
    Buffer.alloc(40).toString('base64url'), Buffer.alloc(1000).toString('base64url'),
    [], [''], [valid.from__confirm], {}, { toString: () => valid.from__confirm }, () => '', new Date(), /x/,
    Object.create(null)
  ]
  let checked = 0
  const attempt = (fields: unknown) => {
    try {
      honeypot.check(fields)
    } catch (error) {
      if (!(error instanceof HoneypotError)) t.fail(`threw ${String(error)}`)
    }
    checked++
  }
  for (const value of values) {
    attempt(value) // as the whole body
    attempt({ name__confirm: value, from__confirm: valid.from__confirm })
    attempt({ name__confirm: '', from__confirm: value })
  }
  // Bodies that fight back.
  attempt(new Proxy({}, { has () { throw new Error('boom') }, getOwnPropertyDescriptor () { throw new Error('boom') } }))
  attempt(Object.defineProperty({ from__confirm: valid.from__confirm }, 'name__confirm', { enumerable: true, get () { throw new Error('boom') } }))
  attempt(Object.create({ name__confirm: '', from__confirm: valid.from__confirm })) // inherited, not submitted
  attempt(JSON.parse('{"__proto__": {"name__confirm": ""}, "from__confirm": "x"}'))
  t.equal(checked, values.length * 3 + 4)

  assertRefused(t, () => honeypot.check(Object.create({ name__confirm: '', from__confirm: valid.from__confirm })), 'HONEYPOT_MISSING')
})

tap.test('bad options fail at construction, naming the problem', async t => {
  t.throws(() => new Honeypot({ secret: '' }), /secret/)
  t.throws(() => new Honeypot({ secret: undefined as unknown as string }), /secret/)
  t.throws(() => new Honeypot({ secret: [] }), /secret/, 'an empty list of secrets')
  t.throws(() => new Honeypot({ secret: [SECRET, ''] }), /secret/, 'a list with an empty secret')
  t.throws(() => new Honeypot({ secret: SECRET, nameFieldName: 'same', validFromFieldName: 'same' }), /field names/)
  t.throws(() => new Honeypot({ secret: SECRET, minDelayMs: -1 }), /minDelayMs/)
  t.throws(() => new Honeypot({ secret: SECRET, maxAgeMs: NaN }), /maxAgeMs/)
  t.doesNotThrow(() => new Honeypot({ secret: SECRET }).getInputProps(), 'real clock by default')
})
