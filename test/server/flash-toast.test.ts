import { createHmac } from 'node:crypto'
import t from 'tap'
import fastify, { type LightMyRequestResponse } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import { FLASH_TOAST_COOKIE, setFlashToast, takeFlashToast, type FlashToastInput } from '../../src/server/flash-toast.js'

/** The assertions the helpers use, from the top-level test or a subtest. */
type Asserts = Pick<typeof t, 'equal' | 'ok' | 'fail' | 'teardown'>

const SECRET = 'a-cookie-secret-that-is-at-least-32-characters'

/** A tiny app: POST /act sets a toast and redirects, GET /page takes it and answers it as JSON. */
async function build (test: Asserts, { secure = false } = {}) {
  const app = fastify()
  await app.register(fastifyCookie, { secret: SECRET })
  app.post<{ Body: FlashToastInput }>('/act', async (request, reply) => {
    setFlashToast(reply, request.body, { secure })
    return reply.redirect('/page', 303)
  })
  app.get('/page', async (request, reply) => ({ toast: takeFlashToast(request, reply, { secure }) }))
  // Any error in a handler should fail the test, not hide behind a status code.
  app.setErrorHandler((error, _request, reply) => {
    test.fail(`unexpected error: ${String(error)}`)
    return reply.code(500).send({ error: String(error) })
  })
  test.teardown(() => app.close())
  return app
}

/** The raw Set-Cookie line for our cookie, or undefined. */
function setCookieLine (res: LightMyRequestResponse): string | undefined {
  const header = res.headers['set-cookie']
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header]
  return lines.find(line => line.startsWith(`${FLASH_TOAST_COOKIE}=`))
}

function toastCookie (res: LightMyRequestResponse) {
  return res.cookies.find(cookie => cookie.name === FLASH_TOAST_COOKIE)
}

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

t.test('setFlashToast: a signed, HttpOnly, Lax, short-lived cookie', async t => {
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
  t.match(json, { type: 'success', title: 'Saved', description: 'Your note was saved.' })
  t.match(json.id, /^[0-9a-f-]{36}$/, 'an id is generated')
})

t.test('setFlashToast: Secure in production, defaults filled in', async t => {
  const app = await build(t, { secure: true })
  const res = await app.inject({ method: 'POST', url: '/act', payload: { description: 'Hello' } })
  t.match(setCookieLine(res), /; Secure/i)
  const json = JSON.parse(Buffer.from(app.unsignCookie(toastCookie(res)!.value).value!, 'base64url').toString('utf8'))
  t.equal(json.type, 'message')
  t.notOk('title' in json, 'no title key when none was given')
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
  const act = await app.inject({ method: 'POST', url: '/act', payload: { description: 'Hi' } })
  const page = await getPage(t, app, toastCookie(act)!.value)
  t.match(setCookieLine(page), /; Path=\/.*; HttpOnly.*; Secure/i)
})

t.test('tampered, unsigned, garbage or wrong-shape cookies read as null and are cleared', async t => {
  const app = await build(t)
  const sign = (value: string) => app.signCookie(value)
  const encode = (data: unknown) => Buffer.from(JSON.stringify(data), 'utf8').toString('base64url')
  const valid = { id: 'x', type: 'message', description: 'Hello' }
  const signedValid = sign(encode(valid))

  const cases: Record<string, string> = {
    unsigned: encode(valid),
    'tampered payload': encode({ ...valid, description: 'Pwned' }) + signedValid.slice(signedValid.lastIndexOf('.')),
    'tampered signature': signedValid.slice(0, -2) + (signedValid.endsWith('AA') ? 'BB' : 'AA'),
    'signed with another secret': encode(valid) + '.' + createHmac('sha256', 'another-secret-of-at-least-32-characters!!').update(encode(valid)).digest('base64').replace(/=/g, ''),
    empty: '',
    'just a dot': '.',
    'signed garbage': sign('%%%not base64%%%'),
    'signed non-JSON': sign(Buffer.from('not json').toString('base64url')),
    'signed JSON null': sign(encode(null)),
    'signed JSON array': sign(encode([valid])),
    'signed JSON string': sign(encode('Hello')),
    'unknown type': sign(encode({ ...valid, type: 'warning' })),
    'empty description': sign(encode({ ...valid, description: '' })),
    'description too long': sign(encode({ ...valid, description: 'x'.repeat(1001) })),
    'title too long': sign(encode({ ...valid, title: 'x'.repeat(201) })),
    'title not a string': sign(encode({ ...valid, title: 1 })),
    'id too long': sign(encode({ ...valid, id: 'x'.repeat(101) })),
    'missing id': sign(encode({ type: 'message', description: 'Hello' })),
    'extra property': sign(encode({ ...valid, html: '<script>' })),
    'prototype key': sign(Buffer.from('{"__proto__":{"x":1},"id":"x","type":"message","description":"Hello"}').toString('base64url')),
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

t.test('setFlashToast refuses toasts that would not survive the trip', async t => {
  const app = fastify()
  await app.register(fastifyCookie, { secret: SECRET })
  t.teardown(() => app.close())
  const errors: string[] = []
  app.post<{ Body: FlashToastInput }>('/act', async (request, reply) => {
    try {
      setFlashToast(reply, request.body, { secure: false })
    } catch (error) {
      errors.push(String(error))
    }
    return { ok: true }
  })
  for (const payload of [
    { description: '' },
    { description: 'x'.repeat(1001) },
    { description: 'Hi', type: 'warning' },
    { description: '\u0000'.repeat(1000), title: '\u0000'.repeat(200) } // valid lengths, but ~9 kB once JSON-escaped
  ]) {
    const res = await app.inject({ method: 'POST', url: '/act', payload })
    t.equal(res.headers['set-cookie'], undefined, `no cookie for ${JSON.stringify(payload).slice(0, 40)}`)
  }
  t.equal(errors.length, 4)
  t.match(errors[0], /TypeError: setFlashToast: invalid toast \(\/description/)
  t.match(errors[3], /too large for a cookie/)
})
