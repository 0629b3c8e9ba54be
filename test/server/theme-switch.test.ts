import type { LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { ERRORS } from '../../src/server/errors.js'
import { MAX_REDIRECT_LENGTH } from '../../src/shared/safe-redirect.js'
import { build, pageData, postForm, setCookie } from '../helpers/app.js'

const URL = '/resources/theme-switch'
const YEAR = 31_536_000
/** What the site's own form sends besides its fields, as Chromium does (inject's Host is localhost:80). */
const SAME_ORIGIN = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' }

function postJson (app: Awaited<ReturnType<typeof build>>['app'], body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: URL,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body)
  })
}

/** The response changed nothing: no cookie at all, and a client error (never a 5xx). */
function assertRefused (t: Test, response: LightMyRequestResponse, status: number) {
  t.equal(response.statusCode, status, `answered ${status}`)
  t.equal(response.headers['set-cookie'], undefined, 'no Set-Cookie')
  t.equal(response.headers.location, undefined, 'no redirect')
}

/** A browser gets the message in the page shell; a JSON client gets it as JSON. */
function assertMessage (t: Test, response: LightMyRequestResponse, message: RegExp) {
  if (String(response.headers['content-type']).startsWith('text/html')) {
    t.match(response.body, /^<!DOCTYPE html><html lang="en"/, 'an HTML page in the shell')
    t.match(response.body, '<h1>That request could not be processed</h1>')
    t.match(response.body, message)
  } else {
    t.match(response.headers['content-type'], /^application\/json/)
    const body = response.json()
    t.equal(body.statusCode, response.statusCode)
    t.match(body.message, message)
  }
}

t.test('a form post saves the theme and answers 303 to redirectTo', async (t) => {
  const { app } = await build(t)
  const response = await postForm(app, URL, { theme: 'dark', redirectTo: '/settings?tab=look#colours' }, SAME_ORIGIN)
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, '/settings?tab=look#colours')
  t.equal(response.headers['cache-control'], 'no-store')
  const cookie = setCookie(response, 'en_theme')
  t.ok(cookie, 'the theme cookie is set')
  t.equal(cookie?.value, 'dark')
  t.equal(cookie?.path, '/')
  t.equal(cookie?.sameSite, 'Lax')
  t.equal(cookie?.maxAge, YEAR, 'one year')
  t.notOk(cookie?.secure, 'not Secure outside production (http://localhost)')
  t.notOk(cookie?.httpOnly, 'readable by the page: it re-applies the theme from the back/forward cache')
  t.equal(response.cookies.length, 1, 'no other cookie')
})

t.test('a page whose address has a percent sign in it is returned to as it was', async (t) => {
  const { app } = await build(t)
  const page = await app.inject({ url: '/?q=100%25', headers: { accept: 'text/html' } })
  const redirectTo = /<input type="hidden" name="redirectTo" value="([^"]*)"\/>/.exec(page.body)?.[1]
  t.equal(redirectTo, '/?q=100%25', 'the form carries the page\'s own address')
  const response = await postForm(app, URL, { theme: 'dark', redirectTo: redirectTo ?? '' }, SAME_ORIGIN)
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, '/?q=100%25')
})

t.test('without redirectTo the form returns home', async (t) => {
  const { app } = await build(t)
  const response = await postForm(app, URL, { theme: 'light' })
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, '/')
  t.equal(setCookie(response, 'en_theme')?.value, 'light')
})

t.test('choosing system clears the saved preference', async (t) => {
  const { app } = await build(t)
  const response = await postForm(app, URL, { theme: 'system', redirectTo: '/' }, { cookie: 'en_theme=dark' })
  t.equal(response.statusCode, 303)
  const cookie = setCookie(response, 'en_theme')
  t.ok(cookie, 'the cookie is cleared, not left alone')
  t.equal(cookie?.value, '')
  t.equal(cookie?.path, '/', 'with the Path it was set with, or the browser keeps the original')
  t.ok(cookie?.expires && cookie.expires.getTime() <= Date.now(), 'expired')
})

t.test('in production the cookie is Secure', async (t) => {
  const { app } = await build(t, { env: { NODE_ENV: 'production' } })
  const saved = setCookie(await postForm(app, URL, { theme: 'dark' }), 'en_theme')
  t.equal(saved?.secure, true)
  t.equal(saved?.sameSite, 'Lax')
  t.equal(saved?.maxAge, YEAR)
  t.equal(setCookie(await postForm(app, URL, { theme: 'system' }), 'en_theme')?.secure, true, 'clearing matches the attributes')
})

t.test('a script asking for JSON gets 200 with the theme and the cookie, no redirect', async (t) => {
  const { app } = await build(t)
  const form = await postForm(app, URL, { theme: 'dark', redirectTo: '/elsewhere' }, { accept: 'application/json', ...SAME_ORIGIN })
  t.equal(form.statusCode, 200)
  t.same(form.json(), { theme: 'dark' })
  t.equal(form.headers.location, undefined)
  t.equal(setCookie(form, 'en_theme')?.value, 'dark')

  const json = await postJson(app, { theme: 'light' })
  t.equal(json.statusCode, 200)
  t.same(json.json(), { theme: 'light' })
  t.equal(setCookie(json, 'en_theme')?.value, 'light')

  const system = await postJson(app, { theme: 'system' })
  t.same(system.json(), { theme: 'system' })
  t.equal(setCookie(system, 'en_theme')?.value, '', 'system clears it here too')
})

t.test('redirectTo never leaves the site and never injects a header', async (t) => {
  const { app } = await build(t)
  const hostile = [
    'https://evil.example', '//evil.example', '/\\evil.example', '\\\\evil.example', '/\t/evil.example',
    '/%2F%2Fevil.example', '/%5Cevil.example', 'javascript:alert(1)', 'data:text/html,x', '/\r\nSet-Cookie: owned=1',
    '/%0d%0aSet-Cookie:%20owned=1', ' /evil', 'evil.example', '/\u2215evil.example', '/' + 'a'.repeat(5000).slice(0, 3000)
  ]
  for (const redirectTo of hostile) {
    const response = await postForm(app, URL, { theme: 'dark', redirectTo })
    t.equal(response.statusCode, 303, `${JSON.stringify(redirectTo).slice(0, 40)}: still saved`)
    t.equal(response.headers.location, '/', `${JSON.stringify(redirectTo).slice(0, 40)}: replaced by /`)
    t.notOk(setCookie(response, 'owned'), 'no injected cookie')
  }
})

t.test('cross-site submissions are refused and change nothing', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string, Record<string, string>]> = [
    ['another Origin', { origin: 'https://evil.example' }],
    ['Origin: null', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['cross-site with a forged-looking Origin', { 'sec-fetch-site': 'cross-site', origin: 'http://localhost' }],
    ['a sibling origin', { origin: 'http://evil.localhost' }]
  ]
  for (const [name, headers] of cases) {
    await t.test(name, async (t) => {
      const page = await postForm(app, URL, { theme: 'dark', redirectTo: '/' }, headers)
      assertRefused(t, page, 403)
      assertMessage(t, page, /another site, so the theme was not changed/)
      t.match(page.body, '<title>Forbidden | Agent Stack</title>')
      const json = await postJson(app, { theme: 'dark' }, headers)
      assertRefused(t, json, 403)
      assertMessage(t, json, /another site, so the theme was not changed/)
      t.equal(json.json().error, 'Forbidden')
    })
  }
})

t.test('same-origin requests, and clients that send neither header, are accepted', async (t) => {
  const { app } = await build(t)
  const accepted: Array<Record<string, string>> = [{}, SAME_ORIGIN, { origin: 'http://localhost' }, { 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }]
  for (const headers of accepted) {
    const response = await postForm(app, URL, { theme: 'dark' }, headers)
    t.equal(response.statusCode, 303, JSON.stringify(headers))
    t.equal(setCookie(response, 'en_theme')?.value, 'dark')
  }
})

t.test('invalid input gets 400 with a clear message and leaves the cookie alone', async (t) => {
  const { app } = await build(t)
  const forms: Array<[string, Record<string, string | string[]>, RegExp]> = [
    ['theme missing', { redirectTo: '/' }, /A theme is required: system, light or dark/],
    ['an empty form', {}, /A theme is required/],
    ['theme unknown', { theme: 'purple' }, /The theme must be one of system, light or dark/],
    ['theme empty', { theme: '' }, /The theme must be one of/],
    ['theme in another case', { theme: 'Dark' }, /The theme must be one of/],
    ['theme repeated', { theme: ['dark', 'light'] }, /given once/],
    ['theme repeated identically', { theme: ['dark', 'dark'] }, /given once/],
    ['redirectTo repeated', { theme: 'dark', redirectTo: ['/a', '/b'] }, /redirectTo must be a single string/]
  ]
  for (const [name, fields, message] of forms) {
    await t.test(`form: ${name}`, async (t) => {
      const page = await postForm(app, URL, fields, { cookie: 'en_theme=light' })
      assertRefused(t, page, 400)
      assertMessage(t, page, message)
      const json = await postForm(app, URL, fields, { accept: 'application/json' })
      assertRefused(t, json, 400)
      assertMessage(t, json, message)
      t.equal(json.json().error, 'Bad Request')
    })
  }
  const bodies: Array<[string, unknown, RegExp]> = [
    ['theme a number', { theme: 1 }, /The theme must be one of/],
    ['theme an array of one', { theme: ['dark'] }, /given once/],
    ['theme null', { theme: null }, /The theme must be one of/],
    ['theme an object', { theme: { toString: 'dark' } }, /The theme must be one of/],
    ['redirectTo a number', { theme: 'dark', redirectTo: 42 }, /redirectTo must be a single string/],
    ['redirectTo null', { theme: 'dark', redirectTo: null }, /redirectTo must be a single string/],
    ['redirectTo an object', { theme: 'dark', redirectTo: { href: '/' } }, /redirectTo must be a single string/],
    ['an array body', [{ theme: 'dark' }], /JSON object with a theme/],
    ['a string body', 'dark', /JSON object with a theme/],
    ['a null body', null, /JSON object with a theme/],
    ['no theme', { colour: 'dark' }, /A theme is required/]
  ]
  for (const [name, body, message] of bodies) {
    await t.test(`JSON: ${name}`, async (t) => {
      const json = await postJson(app, JSON.stringify(body))
      assertRefused(t, json, 400)
      assertMessage(t, json, message)
      const page = await postJson(app, JSON.stringify(body), { accept: 'text/html' })
      assertRefused(t, page, 400)
      assertMessage(t, page, message)
    })
  }
  await t.test('JSON: malformed', async (t) => {
    const json = await postJson(app, '{"theme": "dark"')
    assertRefused(t, json, 400)
    assertMessage(t, json, /not valid JSON/)
  })
  await t.test('JSON: prototype pollution', async (t) => {
    const json = await postJson(app, '{"theme":"dark","__proto__":{"polluted":true}}')
    assertRefused(t, json, 400)
    t.equal(({} as Record<string, unknown>).polluted, undefined)
  })
})

t.test('the 400 page is the shell, and its own switch returns home rather than to the POST URL', async (t) => {
  const { app } = await build(t)
  const page = await postForm(app, URL, { theme: 'purple' })
  t.equal(page.statusCode, 400)
  t.match(page.body, '<title>Bad request | Agent Stack</title>')
  t.match(page.body, /<input type="hidden" name="redirectTo" value="\/"\/>/)
  t.equal(page.headers['cache-control'], 'private, no-cache')
})

t.test('other content types get 415', async (t) => {
  const { app } = await build(t)
  const types = ['text/plain', 'multipart/form-data; boundary=x', 'application/xml', 'application/json-patch+json', 'text/html', 'application/x-www-form-urlencoded-x']
  for (const type of types) {
    const page = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': type, accept: 'text/html' }, payload: 'theme=dark' })
    assertRefused(t, page, 415)
    assertMessage(t, page, /This content type is not accepted here/)
    const json = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': type, accept: 'application/json' }, payload: 'theme=dark' })
    assertRefused(t, json, 415)
    t.equal(json.json().error, 'Unsupported Media Type')
  }
  const none = await app.inject({ method: 'POST', url: URL, headers: { accept: 'application/json' }, payload: '' })
  assertRefused(t, none, 415)
  const parameters = await postForm(app, URL, { theme: 'dark' }, { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' })
  t.equal(parameters.statusCode, 303, 'a charset parameter is fine')
  const upper = await postForm(app, URL, { theme: 'dark' }, { 'content-type': 'Application/X-WWW-Form-Urlencoded' })
  t.equal(upper.statusCode, 303, 'media types are case-insensitive')
})

t.test('a form or JSON in a charset other than UTF-8 gets 415 saying so, never misread as UTF-8', async (t) => {
  const { app } = await build(t)
  // `theme=dark` in UTF-16: read as UTF-8 it was a form without a theme.
  const utf16 = Buffer.from('theme=dark', 'utf16le')
  for (const charset of ['utf-16le', 'UTF-16', 'iso-8859-1', '"windows-1252"']) {
    const page = await app.inject({ method: 'POST', url: URL, headers: { 'content-type': `application/x-www-form-urlencoded; charset=${charset}`, accept: 'text/html' }, payload: utf16 })
    assertRefused(t, page, 415)
    assertMessage(t, page, /character set the server does not read/)
    const json = await postJson(app, { theme: 'dark' }, { 'content-type': `application/json; charset=${charset}` })
    assertRefused(t, json, 415)
    t.same(json.json(), { statusCode: 415, error: 'Unsupported Media Type', message: ERRORS.CHARSET_NOT_ACCEPTED.message }, `JSON in ${charset}`)
  }
  for (const charset of ['utf-8', 'UTF8', '"UTF-8"', 'us-ascii']) {
    const form = await postForm(app, URL, { theme: 'dark' }, { 'content-type': `application/x-www-form-urlencoded; charset=${charset}` })
    t.equal(form.statusCode, 303, `a form in ${charset} is read`)
    t.equal(setCookie(form, 'en_theme')?.value, 'dark')
  }
})

t.test('the longest address a page offers fits the body, form-encoded; a body over the small limit gets 413', async (t) => {
  const { app } = await build(t)
  // 2046 characters, most of which form encoding writes as three bytes (`%2F`, `%26`, `%3D`).
  const longest = '/?' + 'a=/&'.repeat(511)
  const back = await postForm(app, URL, { theme: 'dark', redirectTo: longest })
  t.equal(back.statusCode, 303)
  t.equal(back.headers.location, longest, 'back to that address')
  const page = await postForm(app, URL, { theme: 'dark', redirectTo: '/' + 'a'.repeat(9 * 1024) })
  assertRefused(t, page, 413)
  assertMessage(t, page, /too large/)
  const json = await postJson(app, { theme: 'dark', padding: 'x'.repeat(9 * 1024) })
  assertRefused(t, json, 413)
  t.equal(json.json().error, 'Payload Too Large')
  const justUnder = await postForm(app, URL, { theme: 'dark', redirectTo: '/' + 'a'.repeat(3 * 1024) })
  t.equal(justUnder.statusCode, 303, 'a few KiB are fine (redirectTo is then too long to keep)')
  t.equal(justUnder.headers.location, '/')
})

t.test('a page at an address longer than the switch keeps offers home as the way back: its form never grows past the body limit', async (t) => {
  const { app } = await build(t)
  const returnTo = async (url: string) => pageData((await app.inject({ url, headers: { accept: 'text/html' } })).body).requestInfo.returnTo
  t.equal(await returnTo('/?q=kept'), '/?q=kept')
  t.equal(await returnTo(`/?q=${'a'.repeat(MAX_REDIRECT_LENGTH)}`), '/')
})

t.test('no input produces a 5xx', async (t) => {
  const { app } = await build(t)
  const requests = [
    { headers: { 'content-type': 'application/json' }, payload: '' },
    { headers: { 'content-type': 'application/json' }, payload: '\u0000' },
    { headers: { 'content-type': 'application/json; charset=utf-16' }, payload: '{"theme":"dark"}' },
    { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '%%%' },
    { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme=%E0%A4%A' },
    { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '__proto__=dark&constructor=x&theme=dark' },
    { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme=dark&redirectTo=%0d%0a' },
    { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme[]=dark' },
    { headers: { 'content-type': ';;;' }, payload: 'theme=dark' },
    { headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '3' }, payload: 'theme=dark' },
    { headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://[bad' }, payload: 'theme=dark' }
  ]
  for (const request of requests) {
    for (const accept of ['text/html', 'application/json']) {
      const response = await app.inject({ method: 'POST', url: URL, ...request, headers: { ...request.headers, accept } })
      t.ok(response.statusCode < 500, `${JSON.stringify(request).slice(0, 90)} (${accept}) → ${response.statusCode}`)
    }
  }
  for (const method of ['GET', 'PUT', 'DELETE'] as const) {
    const response = await app.inject({ method, url: URL })
    t.ok(response.statusCode >= 400 && response.statusCode < 500, `${method} → ${response.statusCode}`)
  }
})
