import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { createElement, Suspense, use } from 'react'
import t from 'tap'
import { FLASH_TOAST_COOKIE } from '../../src/server/cookies/flash-toast.js'
import { assertHuman } from '../../src/server/security/honeypot.js'
import { defineLoader } from '../../src/server/screens/index.js'
import { PLAIN_HTTP_WARNING } from '../../src/server/plugins/app/plain-http-warning.js'
import { screen } from '../helpers/screens.js'
import { build, cacheOutcome, pageData, postForm, setCookie } from '../helpers/app.js'
import { blockedInlineScripts, scriptNonce } from '../helpers/csp.js'

const VISITOR = { accept: 'text/html', cookie: 'en_theme=dark; CH-prefers-color-scheme=dark; CH-time-zone=Europe%2FParis' }
/** A person's browser: a bot waits for the whole document, so only a person's is streamed. */
const PERSON = { ...VISITOR, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36' }

const nonceAttributes = (html: string) => [...html.matchAll(/\snonce="([^"]*)"/g)].map(([, value]) => value)

t.test('the same page data, asked for again, is kept, then served with its scripts allowed by hash and a fresh honeypot token', async (t) => {
  const { app } = await build(t, { honeypot: { now: (() => { let now = 1_750_000_000_000; return () => (now += 5000) })() } })
  const once = await app.inject({ url: '/', headers: VISITOR })
  t.equal(app.renderCache.size, 0, 'a document asked for once is not kept')
  const first = await app.inject({ url: '/', headers: VISITOR })
  t.equal(app.renderCache.size, 1, 'asked for a second time, it is kept')
  const second = await app.inject({ url: '/', headers: VISITOR })
  t.equal(app.renderCache.size, 1, 'and served, not rendered again')
  t.same([once, first, second].map(cacheOutcome), ['miss', 'miss', 'hit'], 'each answer says what the cache did')

  t.equal(second.statusCode, 200)
  t.equal(second.headers['content-type'], 'text/html; charset=utf-8')
  const nonce = scriptNonce(first.headers['content-security-policy'])
  t.ok(nonce, 'a rendered document is nonce-based')
  t.ok(nonceAttributes(first.body).length >= 2 && nonceAttributes(first.body).every((value) => value === nonce), 'each of its scripts carries its nonce')
  t.equal(scriptNonce(second.headers['content-security-policy']), undefined, 'a kept one has no nonce')
  t.same(nonceAttributes(second.body), [], 'on none of its scripts')
  t.match(String(second.headers['content-security-policy']), /script-src 'self'( 'sha256-[A-Za-z0-9+/]{43}=')+;/, 'its policy lists its inline scripts\' hashes')
  for (const response of [first, second]) t.same(blockedInlineScripts(response.body, response.headers['content-security-policy']), [], 'every inline script is allowed')
  const [one, two] = [first, second].map((response) => pageData(response.body).honeyProps.encryptedValidFrom)
  t.not(one, two, 'a fresh honeypot token once its second is over')
  const perResponse = (html: string, token: string) => html.replace(/ nonce="[^"]*"/g, '').replaceAll(token, 'TOKEN')
  t.equal(perResponse(second.body, two!), perResponse(first.body, one!), 'otherwise the very same document')
})

t.test('hits within one honeypot token get the same bytes, in the encoding asked for', async (t) => {
  let now = 1_750_000_000_000
  const { app } = await build(t, { honeypot: { now: () => now } })
  const ask = (encoding: string) => app.inject({ url: '/', headers: { ...VISITOR, 'accept-encoding': encoding } })
  await ask('identity')
  await ask('identity')
  const [plain, br, gzip, brAgain] = [await ask('identity'), await ask('br'), await ask('gzip'), await ask('br')]
  t.same([plain, br, gzip, brAgain].map(cacheOutcome), ['hit', 'hit', 'hit', 'hit'])
  t.same([plain, br, gzip].map((response) => response.headers['content-encoding']), [undefined, 'br', 'gzip'])
  for (const response of [plain, br, gzip]) t.match(String(response.headers.vary), /accept-encoding/i, 'Vary names Accept-Encoding')
  t.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body, 'br decodes to the same document')
  t.equal(gunzipSync(gzip.rawPayload).toString(), plain.body, 'so does gzip')
  t.ok(brAgain.rawPayload.equals(br.rawPayload), 'the same bytes for the next hit')
  t.same(new Set([plain, br, gzip].map((response) => response.headers['content-security-policy'])).size, 1, 'with the same policy')
  now += 5000
  const later = await ask('br')
  const html = brotliDecompressSync(later.rawPayload).toString()
  t.not(pageData(html).honeyProps.encryptedValidFrom, pageData(plain.body).honeyProps.encryptedValidFrom, 'a new second, a new token')
  t.not(later.headers['content-security-policy'], br.headers['content-security-policy'], 'and the policy follows the page data\'s new hash')
  t.same(blockedInlineScripts(html, later.headers['content-security-policy']), [], 'which allows its scripts')
})

t.test('a browser gets a document compressed for its response alone in gzip, a kept one in brotli', async (t) => {
  // Started by the first render, so that the page waits on it however long the requests before took.
  let slow: Promise<string> | undefined
  function Later () {
    slow ??= new Promise((resolve) => setTimeout(() => resolve('arrived later'), 20))
    return createElement('p', null, use(slow))
  }
  const streams = screen({
    path: '/streams',
    component: () => createElement(Suspense, { fallback: createElement('p', null, 'Loading…') }, createElement(Later))
  })
  const { app } = await build(t, { screens: { streams } })
  // Chromium's Accept-Encoding: it takes gzip, brotli and more alike, so the server's preference decides.
  const CHROMIUM = { ...PERSON, 'accept-encoding': 'gzip, deflate, br, zstd' }
  const home = [await app.inject({ url: '/', headers: CHROMIUM }), await app.inject({ url: '/', headers: CHROMIUM }), await app.inject({ url: '/', headers: CHROMIUM })]
  t.same(home.map(cacheOutcome), ['miss', 'miss', 'hit'], 'rendered twice, then kept')
  t.same(home.map((response) => response.headers['content-encoding']), ['gzip', 'gzip', 'br'], 'rendered: the cheaper; kept, compressed once for its hits: the smaller')
  for (const [response, decode] of [[home[0]!, gunzipSync], [home[2]!, brotliDecompressSync]] as const) t.match(decode(response.rawPayload).toString(), /^<!DOCTYPE html>[\s\S]*<\/html>$/, 'each decodes to the whole document')
  const streamed = await app.inject({ url: '/streams', headers: CHROMIUM })
  t.equal(streamed.headers['transfer-encoding'], 'chunked', 'streamed from its shell')
  t.equal(streamed.headers['content-encoding'], 'gzip', 'a stream is compressed for its response alone')
  t.match(gunzipSync(streamed.rawPayload).toString(), /arrived later/)
})

t.test('a page whose loader waits is kept too, and its loader still runs on every visit', async (t) => {
  let visits = 0
  const report = screen<{ visits: number }>({
    path: '/report',
    component: ({ data }) => createElement('p', { id: 'visits' }, `Visits mod 2: ${data.visits}`)
  }, {
    async loader () {
      await new Promise((resolve) => setImmediate(resolve))
      return { visits: ++visits % 2 }
    }
  })
  const { app } = await build(t, { screens: { report } })
  const bodies: string[] = []
  for (let visit = 0; visit < 6; visit++) {
    const response = await app.inject({ url: '/report', headers: VISITOR })
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    bodies.push(response.body)
  }
  t.equal(visits, 6, 'the loader ran for each visit')
  t.equal(app.renderCache.size, 2, 'two distinct page data, two documents kept')
  t.same(bodies.map((body) => pageData(body).page?.data), [{ visits: 1 }, { visits: 0 }, { visits: 1 }, { visits: 0 }, { visits: 1 }, { visits: 0 }], 'each visit shows its own data')
  t.match(bodies[4], '<p id="visits">Visits mod 2: 1</p>', 'the cached document matches its data')
})

t.test('different data never gets another visitor\'s document', async (t) => {
  const { app } = await build(t)
  const visit = async (url: string, headers: Record<string, string>) => {
    await app.inject({ url, headers })
    return app.inject({ url, headers })
  }
  const dark = await visit('/', VISITOR)
  const light = await visit('/', { ...VISITOR, cookie: 'en_theme=light; CH-time-zone=Asia%2FTokyo' })
  const elsewhere = await visit('/?from=mail', VISITOR)
  t.equal(app.renderCache.size, 3, 'one document per distinct page data')
  t.match(dark.body, /<html lang="en" class="dark"/)
  t.match(light.body, /<html lang="en" class="light"/)
  t.equal(pageData(light.body).requestInfo.hints.timeZone, 'Asia/Tokyo')
  t.equal(pageData(elsewhere.body).requestInfo.path, '/?from=mail')
  const again = await app.inject({ url: '/', headers: { ...VISITOR, cookie: 'en_theme=light; CH-time-zone=Asia%2FTokyo' } })
  t.match(again.body, /<html lang="en" class="light"/, 'a cached document still matches its own data')
  t.equal(pageData(again.body).requestInfo.hints.timeZone, 'Asia/Tokyo')
})

t.test('a flood of addresses asked for once never pushes the popular document out', async (t) => {
  // Room for three documents of about 4.5 KB.
  const { app } = await build(t, { renderCache: { maxChars: 15_000 } })
  await app.inject({ url: '/', headers: VISITOR })
  await app.inject({ url: '/', headers: VISITOR })
  for (let visit = 0; visit < 20; visit++) {
    const response = await app.inject({ url: `/?utm_source=scan-${visit}`, headers: VISITOR })
    t.equal(pageData(response.body).requestInfo.path, `/?utm_source=scan-${visit}`)
  }
  const popular = await app.inject({ url: '/', headers: VISITOR })
  t.equal(cacheOutcome(popular), 'hit', 'the popular document is still served from the cache')
  t.equal(pageData(popular.body).requestInfo.path, '/')
  t.equal(app.renderCache.size, 1, 'and the addresses seen once were never kept')
})

t.test('a form rendered from the cache passes the honeypot', async (t) => {
  const { app } = await build(t, {
    honeypot: { timing: false },
    routes (app) {
      app.post('/test/contact', async (request, reply) => {
        assertHuman(request, 'home')
        return reply.redirect('/', 303)
      })
    }
  })
  await app.inject({ url: '/', headers: VISITOR })
  await app.inject({ url: '/', headers: VISITOR })
  const cached = await app.inject({ url: '/', headers: VISITOR })
  const { honeyProps } = pageData(cached.body)
  const response = await postForm(app, '/test/contact', { [honeyProps.nameFieldName]: '', [honeyProps.validFromFieldName]: honeyProps.encryptedValidFrom })
  t.equal(response.statusCode, 303)
})

t.test('a page with a flash toast is always rendered, and the toast shown once', async (t) => {
  const { app } = await build(t, {
    routes (app) {
      app.post('/test/toast', async (_request, reply) => {
        app.flashToasts.set(reply, { type: 'success', description: 'Saved.' })
        return reply.redirect('/', 303)
      })
    }
  })
  const posted = await app.inject({ method: 'POST', url: '/test/toast' })
  const toast = setCookie(posted, FLASH_TOAST_COOKIE)
  const cookie = `${VISITOR.cookie}; ${FLASH_TOAST_COOKIE}=${toast?.value}`
  const first = await app.inject({ url: '/', headers: { ...VISITOR, cookie } })
  const shown = await app.inject({ url: '/', headers: { ...VISITOR, cookie } })
  t.same([first, shown].map(cacheOutcome), ['bypass', 'bypass'], 'never looked up')
  t.equal(pageData(shown.body).toast?.description, 'Saved.')
  t.equal(app.renderCache.size, 0, 'not kept: the toast is for this response only')
  const next = await app.inject({ url: '/', headers: VISITOR })
  t.equal(pageData(next.body).toast, null, 'the next page has no toast')
})

t.test('a document that failed to render is never kept', async (t) => {
  function Thrower (): never {
    throw new Error('boundary failed')
  }
  const screens = {
    'shell-fails': screen({ path: '/shell-fails', component: Thrower }),
    'boundary-fails': screen({
      path: '/boundary-fails',
      component: () => createElement('main', null, createElement(Suspense, { fallback: createElement('p', null, 'Loading…') }, createElement(Thrower)))
    })
  }
  const { app } = await build(t, { screens, allowErrorLogs: true })
  for (const url of ['/shell-fails', '/boundary-fails', '/shell-fails', '/boundary-fails']) {
    await app.inject({ url, headers: VISITOR })
  }
  t.equal(app.renderCache.size, 0)
})

t.test('a streamed page with a suspended part is kept whole, and served whole', async (t) => {
  // A promise React has not seen yet for each visit, so each render waits on it.
  const later = () => new Promise<string>((resolve) => setTimeout(() => resolve('arrived later'), 20))
  let slow = later()
  function Later () {
    return createElement('p', null, use(slow))
  }
  const streams = screen({
    path: '/streams',
    component: () => createElement('main', null, createElement(Suspense, { fallback: createElement('p', null, 'Loading…') }, createElement(Later)))
  })
  const { app } = await build(t, { screens: { streams } })
  await app.inject({ url: '/streams', headers: PERSON })
  slow = later()
  const streamed = await app.inject({ url: '/streams', headers: PERSON })
  t.match(streamed.body, /arrived later/)
  t.equal(streamed.headers['transfer-encoding'], 'chunked', 'streamed from its shell')
  t.equal(app.renderCache.size, 1)
  const cached = await app.inject({ url: '/streams', headers: PERSON })
  t.match(cached.body, /arrived later/)
  t.match(cached.body, /<\/html>$/, 'the whole document')
})

/** A component that breaks the purity rule: it shows a number that changes on every render. */
let renders = 0
const counter = { path: '/counter', component: () => createElement('p', { id: 'renders' }, `Render ${++renders}`) }

t.test('a kept error document keeps its status: a 404 stays a 404', async (t) => {
  const { app } = await build(t)
  const answers = [await app.inject({ url: '/no-such-page', headers: VISITOR }), await app.inject({ url: '/no-such-page', headers: VISITOR }), await app.inject({ url: '/no-such-page', headers: VISITOR })]
  t.same(answers.map(cacheOutcome), ['miss', 'miss', 'hit'])
  t.same(answers.map((response) => response.statusCode), [404, 404, 404])
  t.equal(answers[2]?.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(pageData(answers[2]?.body ?? '').page.status, 404, 'the page data says so too')
})

t.test('a page marked cache: false is rendered on every request and never kept', async (t) => {
  const { app } = await build(t, { screens: { counter: screen({ ...counter, cache: false }) } })
  const [first, second] = [await app.inject({ url: '/counter', headers: VISITOR }), await app.inject({ url: '/counter', headers: VISITOR })]
  t.not(/Render \d+/.exec(first.body)?.[0], /Render \d+/.exec(second.body)?.[0], 'each visit renders afresh')
  t.equal(app.renderCache.size, 0)
})

t.test('a page whose loader says no-store is private to its visitor: never kept, served as its loader said', async (t) => {
  const account = screen({ path: '/account', component: ({ data }: { data: { email: string } }) => createElement('p', null, data.email) }, {
    loader: defineLoader<{ email: string }>(({ reply }) => {
      reply.header('Cache-Control', 'no-store')
      return { email: 'ada@example.com' }
    })
  })
  const { app } = await build(t, { screens: { account } })
  const answers = [await app.inject({ url: '/account', headers: VISITOR }), await app.inject({ url: '/account', headers: VISITOR }), await app.inject({ url: '/account', headers: VISITOR })]
  t.same(answers.map(cacheOutcome), ['bypass', 'bypass', 'bypass'], 'rendered for each request')
  t.equal(app.renderCache.size, 0, 'no copy kept in the server either')
  for (const answer of answers) {
    t.equal(answer.headers['cache-control'], 'no-store', 'nor in the browser: the back/forward cache does not show it again after signing out')
    t.match(answer.body, '<p>ada@example.com</p>')
  }
})

t.test('outside production, a cached page that renders differently is reported by name', async (t) => {
  const { app, logs } = await build(t, { screens: { counter: screen(counter) } })
  await app.inject({ url: '/counter', headers: VISITOR })
  await app.inject({ url: '/counter', headers: VISITOR })
  t.notOk(logs.some((entry) => entry.level === 40), 'a render has nothing to compare with')
  await app.inject({ url: '/counter', headers: VISITOR })
  await t.resolveMatch(waitFor(() => logs.find((entry) => entry.level === 40 && entry.page === 'counter')), { msg: /the page "counter" rendered differently from its cached document/ })
  await app.inject({ url: '/', headers: VISITOR })
  await app.inject({ url: '/', headers: VISITOR })
  await app.inject({ url: '/', headers: VISITOR })
  // Checked once a later hit of the impure page has been compared: the home page's comparison ran before it.
  await app.inject({ url: '/counter', headers: VISITOR })
  await waitFor(() => logs.filter((entry) => entry.level === 40 && entry.page === 'counter')[1])
  t.notOk(logs.some((entry) => entry.level === 40 && entry.page === 'home'), 'a pure page is not reported')
})

t.test('in production a cache hit is not rendered again', async (t) => {
  const { app, logs } = await build(t, { env: { NODE_ENV: 'production' }, screens: { counter: screen(counter) } })
  const rendersBefore = renders
  await app.inject({ url: '/counter', headers: VISITOR })
  const first = await app.inject({ url: '/counter', headers: VISITOR })
  const second = await app.inject({ url: '/counter', headers: VISITOR })
  t.equal(/Render \d+/.exec(second.body)?.[0], /Render \d+/.exec(first.body)?.[0], 'the kept document is served')
  t.equal(renders, rendersBefore + 2, 'rendered for the first two visits only')
  // The one warning a production instance gives over plain http is about TLS, not the cache.
  t.notOk(logs.some((entry) => entry.level === 40 && entry.msg !== PLAIN_HTTP_WARNING))
})

t.test('an address carrying the public honeypot token is served as asked, never with another token in its place', async (t) => {
  let now = 1_750_000_000_000
  const { app } = await build(t, { honeypot: { now: () => now } })
  const token = pageData((await app.inject({ url: '/', headers: VISITOR })).body).honeyProps.encryptedValidFrom
  const url = `/?next=${token}`
  await app.inject({ url, headers: VISITOR })
  await app.inject({ url, headers: VISITOR })
  now += 5000
  const later = await app.inject({ url, headers: VISITOR })
  const data = pageData(later.body)
  t.not(data.honeyProps.encryptedValidFrom, token, 'the token has moved on')
  t.equal(data.requestInfo.path, url, 'the address is the one asked for')
  t.match(later.body, `name="redirectTo" value="${url}"`, 'and so is the theme switch\'s return address')
})

async function waitFor<T> (find: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = find()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('not found in time')
}
