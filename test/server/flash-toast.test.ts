import { createHmac } from 'node:crypto'
import t from 'tap'
import fastify, { type LightMyRequestResponse } from 'fastify'
import { FLASH_TOAST_COOKIE, type FlashToastInput } from '../../src/server/cookies/flash-toast.js'
import { flashToasts } from '../../src/server/plugins/app/flash-toasts.js'
import { cookies } from '../../src/server/plugins/external/cookies.js'

/** The assertions the helpers use, from the top-level test or a subtest. */
type Asserts = Pick<typeof t, 'equal' | 'ok' | 'fail' | 'teardown'>

const SECRET = 'a-cookie-secret-that-is-at-least-32-characters'

const T0 = 1_750_000_000_000

/** A tiny app: POST /act sets a toast and redirects, GET /page takes it and answers it as JSON. */
async function build (test: Asserts, { secure = false, clock = { now: T0 } } = {}) {
  const app = fastify()
  await app.register(cookies, { secret: [SECRET], secure })
  await app.register(flashToasts, { now: () => clock.now })
  app.post<{ Body: FlashToastInput }>('/act', async (request, reply) => {
    app.flashToasts.set(reply, request.body)
    return reply.redirect('/page', 303)
  })
  app.get('/page', async (request, reply) => ({ toast: app.flashToasts.take(request, reply) }))
  // Any error in a handler should fail the test, not hide behind a status code.
  app.setErrorHandler((error, _request, reply) => {
    test.fail(`unexpected error: ${String(error)}`)
    return reply.code(500).send({ error: String(error) })
  })
  test.teardown(() => app.close())
  return app
}

/** The raw Set-Cookie line for our cookie, or undefined. */
function setCookieLine (res: LightMyRequestResponse, name = FLASH_TOAST_COOKIE): string | undefined {
  const header = res.headers['set-cookie']
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header]
  return lines.find(line => line.startsWith(`${name}=`))
}

function toastCookie (res: LightMyRequestResponse, name = FLASH_TOAST_COOKIE) {
  return res.cookies.find(cookie => cookie.name === name)
}

/** What the cookie carries once unsigned: the toast, the cookie it is for, and its expiry in seconds. */
const encode = (data: unknown) => Buffer.from(JSON.stringify(data), 'utf8').toString('base64url')
const envelope = (toast: unknown, { name = FLASH_TOAST_COOKIE, expires = T0 / 1000 + 60 } = {}) => encode({ name, expires, toast })

/** Asserts the response clears the toast cookie at the Path it was set on. */
function assertCleared (test: Asserts, res: LightMyRequestResponse) {
  const cookie = toastCookie(res)
  test.ok(cookie, 'the toast cookie is cleared')
  test.equal(cookie?.value, '')
  test.equal(cookie?.path, '/')
  test.equal(cookie?.maxAge, 0)
  test.ok(cookie?.expires && new Date(cookie.expires).getTime() <= Date.now(), 'expired')
}

/** GET /page with the given toast cookie; asserts it never fails. */
async function getPage (test: Asserts, app: Awaited<ReturnType<typeof build>>, cookieValue: string) {
  const res = await app.inject({ method: 'GET', url: '/page', cookies: { [FLASH_TOAST_COOKIE]: cookieValue } })
  test.equal(res.statusCode, 200, 'never a 500')
  return res
}

t.test('a signed, HttpOnly, Lax, short-lived cookie', async t => {
  const app = await build(t)
  const res = await app.inject({ method: 'POST', url: '/act', payload: { type: 'success', title: 'Saved', description: 'Your note was saved.' } })
  t.equal(res.statusCode, 303)
  t.equal(res.headers.location, '/page')

  const line = setCookieLine(res)
  t.ok(line)
  t.match(line, /; HttpOnly/i)
  t.match(line, /; SameSite=Lax/i)
  t.match(line, /; Path=\/(;|$)/)
  t.match(line, /; Max-Age=60(;|$)/)
  t.notMatch(line, /; Secure/i, 'not Secure outside production')

  const cookie = toastCookie(res)!
  const unsigned = app.unsignCookie(cookie.value)
  t.ok(unsigned.valid, 'signed with the app secret')
  const json = JSON.parse(Buffer.from(unsigned.value!, 'base64url').toString('utf8'))
  t.match(json.toast, { type: 'success', title: 'Saved', description: 'Your note was saved.' })
  t.match(json.toast.id, /^[0-9a-f-]{36}$/, 'an id is generated')
  t.equal(json.name, FLASH_TOAST_COOKIE, 'the signed value names its cookie')
  t.equal(json.expires, T0 / 1000 + 60, 'and its expiry, as Max-Age does')
})

t.test('in production: Secure, under a __Host- name, defaults filled in', async t => {
  const app = await build(t, { secure: true })
  const name = `__Host-${FLASH_TOAST_COOKIE}`
  t.equal(app.flashToasts.cookieName, name)
  const res = await app.inject({ method: 'POST', url: '/act', payload: { description: 'Hello' } })
  const line = setCookieLine(res, name)
  t.match(line, /; Secure/i)
  t.match(line, /; Path=\/(;|$)/, '__Host- requires Path=/')
  t.notMatch(line, /; Domain=/i, 'and no Domain')
  t.equal(setCookieLine(res), undefined, 'nothing under the plain name')
  const json = JSON.parse(Buffer.from(app.unsignCookie(toastCookie(res, name)!.value).value!, 'base64url').toString('utf8'))
  t.equal(json.toast.type, 'message')
  t.notOk('title' in json.toast, 'no title key when none was given')
  const page = await app.inject({ method: 'GET', url: '/page', cookies: { [name]: toastCookie(res, name)!.value } })
  t.same(page.json(), { toast: json.toast }, 'and read back')
})

t.test('a captured toast cannot be replayed once it has expired', async t => {
  const clock = { now: T0 }
  const app = await build(t, { clock })
  const act = await app.inject({ method: 'POST', url: '/act', payload: { description: 'Saved.' } })
  const value = toastCookie(act)!.value
  clock.now = T0 + 59_000
  t.match((await getPage(t, app, value)).json(), { toast: { description: 'Saved.' } }, 'within its minute it is shown')
  clock.now = T0 + 60_000
  const late = await getPage(t, app, value)
  t.same(late.json(), { toast: null }, 'after it, the same signed value reads as nothing')
  assertCleared(t, late)
})

t.test('a value signed for another cookie of the app is not a toast', async t => {
  const app = await build(t)
  const valid = { id: 'x', type: 'message', description: 'Hello' }
  t.same((await getPage(t, app, app.signCookie(envelope(valid, { name: 'en_session' })))).json(), { toast: null }, 'bound to another name')
  t.same((await getPage(t, app, app.signCookie(encode(valid)))).json(), { toast: null }, 'a bare toast signed by the same secret')
  t.same((await getPage(t, app, app.signCookie(envelope(valid)))).json(), { toast: valid }, 'control: bound to this cookie')
})

t.test('round trip: the next page gets the toast once, and the cookie is cleared', async t => {
  const app = await build(t)
  const act = await app.inject({ method: 'POST', url: '/act', payload: { id: 'toast-1', type: 'error', title: 'Oops', description: 'Could not save.' } })
  const page = await getPage(t, app, toastCookie(act)!.value)
  t.same(page.json(), { toast: { id: 'toast-1', type: 'error', title: 'Oops', description: 'Could not save.' } })
  assertCleared(t, page)

  const again = await app.inject({ method: 'GET', url: '/page' })
  t.same(again.json(), { toast: null }, 'without the cookie, no toast')
  t.equal(again.headers['set-cookie'], undefined, 'and no Set-Cookie')
})

t.test('the cleared cookie carries the same attributes when Secure', async t => {
  const app = await build(t, { secure: true })
  const name = app.flashToasts.cookieName
  const act = await app.inject({ method: 'POST', url: '/act', payload: { description: 'Hi' } })
  const page = await app.inject({ method: 'GET', url: '/page', cookies: { [name]: toastCookie(act, name)!.value } })
  t.match(setCookieLine(page, name), /; Path=\/.*; HttpOnly.*; Secure/i)
})

t.test('tampered, unsigned, garbage or wrong-shape cookies read as null and are cleared', async t => {
  const app = await build(t)
  const sign = (value: string) => app.signCookie(value)
  const valid = { id: 'x', type: 'message', description: 'Hello' }
  const signedValid = sign(envelope(valid))

  const cases: Record<string, string> = {
    unsigned: envelope(valid),
    'tampered payload': envelope({ ...valid, description: 'Pwned' }) + signedValid.slice(signedValid.lastIndexOf('.')),
    'tampered signature': signedValid.slice(0, -2) + (signedValid.endsWith('AA') ? 'BB' : 'AA'),
    'signed with another secret': envelope(valid) + '.' + createHmac('sha256', 'another-secret-of-at-least-32-characters!!').update(envelope(valid)).digest('base64').replace(/=/g, ''),
    empty: '',
    'just a dot': '.',
    'signed garbage': sign('%%%not base64%%%'),
    'signed non-JSON': sign(Buffer.from('not json').toString('base64url')),
    'signed JSON null': sign(encode(null)),
    'signed JSON array': sign(encode([valid])),
    'signed JSON string': sign(encode('Hello')),
    'unknown type': sign(envelope({ ...valid, type: 'warning' })),
    'empty description': sign(envelope({ ...valid, description: '' })),
    'description too long': sign(envelope({ ...valid, description: 'x'.repeat(1001) })),
    'title too long': sign(envelope({ ...valid, title: 'x'.repeat(201) })),
    'title not a string': sign(envelope({ ...valid, title: 1 })),
    'id too long': sign(envelope({ ...valid, id: 'x'.repeat(101) })),
    'missing id': sign(envelope({ type: 'message', description: 'Hello' })),
    'extra property': sign(envelope({ ...valid, html: '<script>' })),
    'prototype key': sign(Buffer.from(`{"name":"${FLASH_TOAST_COOKIE}","expires":${T0 / 1000 + 60},"toast":{"__proto__":{"x":1},"id":"x","type":"message","description":"Hello"}}`).toString('base64url')),
    'expiry not a number': sign(encode({ name: FLASH_TOAST_COOKIE, expires: 'never', toast: valid })),
    huge: sign('A'.repeat(8000))
  }
  for (const [name, value] of Object.entries(cases)) {
    await t.test(name, async t => {
      const res = await getPage(t, app, value)
      t.same(res.json(), { toast: null })
      assertCleared(t, res)
    })
  }

  t.same((await getPage(t, app, signedValid)).json(), { toast: valid }, 'the untampered control case is accepted')

  for (const header of [`${FLASH_TOAST_COOKIE}=%E0%A4%A`, `${FLASH_TOAST_COOKIE}="unbalanced`, `${FLASH_TOAST_COOKIE}=a; ${FLASH_TOAST_COOKIE}=b`]) {
    const res = await app.inject({ method: 'GET', url: '/page', headers: { cookie: header } })
    t.equal(res.statusCode, 200, `raw header ${header}`)
    t.same(res.json(), { toast: null })
    assertCleared(t, res)
  }
})

t.test('flashToasts.set refuses toasts that would not survive the trip', async t => {
  const app = fastify()
  await app.register(cookies, { secret: [SECRET], secure: false })
  await app.register(flashToasts)
  t.teardown(() => app.close())
  const errors: string[] = []
  app.post<{ Body: FlashToastInput }>('/act', async (request, reply) => {
    try {
      app.flashToasts.set(reply, request.body)
    } catch (error) {
      errors.push(String(error))
    }
    return { ok: true }
  })
  for (const payload of [
    { description: '' },
    { description: 'x'.repeat(701) },
    { description: 'Hi', type: 'warning' },
    { description: 'Hi', id: 'not an id' }
  ]) {
    const res = await app.inject({ method: 'POST', url: '/act', payload })
    t.equal(res.headers['set-cookie'], undefined, `no cookie for ${JSON.stringify(payload).slice(0, 40)}`)
  }
  t.equal(errors.length, 4)
  t.match(errors[0], /TypeError: setFlashToast: invalid toast \(\/description/)
  t.match(errors[3], /invalid toast \(\/id/)
})

t.test('text a visitor typed never costs the toast: control characters become spaces, lone surrogates U+FFFD', async t => {
  const app = await build(t)
  const cases: Array<[FlashToastInput, Pick<FlashToastInput, 'title' | 'description'>]> = [
    [{ title: 'Ada\tLovelace', description: 'Welcome, Ada\tLovelace\r\n' }, { title: 'Ada Lovelace', description: 'Welcome, Ada Lovelace  ' }],
    [{ description: 'Hi \ud800 there 😀' }, { description: 'Hi \ufffd there 😀' }],
    // At the longest, still within the cookie: a space is one byte, U+FFFD three, as any character the schema takes.
    [{ description: '\u0000'.repeat(700), title: '\u0000'.repeat(100) }, { title: ' '.repeat(100), description: ' '.repeat(700) }],
    [{ description: '\udc00'.repeat(700) }, { description: '\ufffd'.repeat(700) }]
  ]
  for (const [input, shown] of cases) {
    const act = await app.inject({ method: 'POST', url: '/act', payload: input })
    t.equal(act.statusCode, 303, JSON.stringify(input).slice(0, 40))
    const page = await getPage(t, app, toastCookie(act)?.value ?? '')
    const { toast } = page.json()
    t.same({ title: toast?.title, description: toast?.description }, shown, 'the next page shows it, cleaned')
  }
})

t.test('the largest toast the schema accepts fits the cookie: its size is settled by the schema, before any handler runs', async t => {
  const app = fastify()
  await app.register(cookies, { secret: [SECRET], secure: true })
  await app.register(flashToasts)
  t.teardown(() => app.close())
  // Three UTF-8 bytes a character: the most one UTF-16 unit can take once control characters are refused.
  const widest = (length: number) => '€'.repeat(length)
  app.post('/act', async (_request, reply) => app.flashToasts.set(reply, { id: 'i'.repeat(100), type: 'success', title: widest(100), description: widest(700) }))
  const res = await app.inject({ method: 'POST', url: '/act' })
  t.equal(res.statusCode, 200)
  t.ok(res.headers['set-cookie'], 'the cookie is set')
  t.ok(String(res.headers['set-cookie']).split(';')[0]!.length < 4096, 'within what browsers keep')
})
