import { createElement, Suspense, use } from 'react'
import t from 'tap'
import { FLASH_TOAST_COOKIE, setFlashToast } from '../../src/server/flash-toast.js'
import { assertHuman } from '../../src/server/honeypot.js'
import { definePage, PAGES } from '../../src/ui/page-table.js'
import { build, pageData, postForm, setCookie } from '../helpers/app.js'

const VISITOR = { accept: 'text/html', cookie: 'en_theme=dark; CH-prefers-color-scheme=dark; CH-time-zone=Europe%2FParis' }

function scriptNonce (headers: Record<string, unknown>): string {
  const nonce = /script-src [^;]*'nonce-([^']+)'/.exec(String(headers['content-security-policy']))?.[1]
  if (!nonce) throw new Error('no script nonce in the CSP')
  return nonce
}

t.test('the same page data is rendered once and served again with its own nonce and honeypot token', async (t) => {
  const { app } = await build(t, { honeypot: { now: (() => { let now = 1_750_000_000_000; return () => (now += 5000) })() } })
  const first = await app.inject({ url: '/', headers: VISITOR })
  t.equal(app.shell.renderCache.size, 1, 'the first document is kept')
  const second = await app.inject({ url: '/', headers: VISITOR })
  t.equal(app.shell.renderCache.size, 1, 'and served, not rendered again')

  t.equal(second.statusCode, 200)
  t.equal(second.headers['content-type'], 'text/html; charset=utf-8')
  for (const response of [first, second]) {
    const nonce = scriptNonce(response.headers)
    const nonces = [...response.body.matchAll(/\snonce="([^"]*)"/g)].map(([, value]) => value)
    t.ok(nonces.length >= 2, 'the document has nonced scripts')
    t.ok(nonces.every((value) => value === nonce), 'each carries the nonce of its own response')
  }
  const [one, two] = [first, second].map((response) => ({ nonce: scriptNonce(response.headers), token: pageData(response.body).honeyProps.encryptedValidFrom }))
  t.not(one!.nonce, two!.nonce, 'a fresh nonce per response')
  t.not(one!.token, two!.token, 'a fresh honeypot token once its second is over')
  t.equal(
    second.body.replaceAll(two!.nonce, 'NONCE').replaceAll(two!.token, 'TOKEN'),
    first.body.replaceAll(one!.nonce, 'NONCE').replaceAll(one!.token, 'TOKEN'),
    'otherwise the very same document'
  )
})

t.test('a page whose loader waits is kept too, and its loader still runs on every visit', async (t) => {
  let visits = 0
  const report = definePage<{ visits: number }>({
    id: 'report',
    path: '/report',
    load: async () => {
      await new Promise((resolve) => setImmediate(resolve))
      return { visits: ++visits % 2 }
    },
    Component: ({ data }) => createElement('p', { id: 'visits' }, `Visits mod 2: ${data.visits}`)
  })
  const { app } = await build(t, { pages: [...PAGES, report] })
  const bodies: string[] = []
  for (let visit = 0; visit < 4; visit++) {
    const response = await app.inject({ url: '/report', headers: VISITOR })
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    bodies.push(response.body)
  }
  t.equal(visits, 4, 'the loader ran for each visit')
  t.equal(app.shell.renderCache.size, 2, 'two distinct page data, two documents kept')
  t.same(bodies.map((body) => pageData(body).page?.data), [{ visits: 1 }, { visits: 0 }, { visits: 1 }, { visits: 0 }], 'each visit shows its own data')
  t.match(bodies[2], '<p id="visits">Visits mod 2: 1</p>', 'the cached document matches its data')
})

t.test('different data never gets another visitor\'s document', async (t) => {
  const { app } = await build(t)
  const dark = await app.inject({ url: '/', headers: VISITOR })
  const light = await app.inject({ url: '/', headers: { ...VISITOR, cookie: 'en_theme=light; CH-time-zone=Asia%2FTokyo' } })
  const elsewhere = await app.inject({ url: '/?from=mail', headers: VISITOR })
  t.equal(app.shell.renderCache.size, 3, 'one document per distinct page data')
  t.match(dark.body, /<html lang="en" class="dark"/)
  t.match(light.body, /<html lang="en" class="light"/)
  t.equal(pageData(light.body).requestInfo.hints.timeZone, 'Asia/Tokyo')
  t.equal(pageData(elsewhere.body).requestInfo.path, '/?from=mail')
  const again = await app.inject({ url: '/', headers: { ...VISITOR, cookie: 'en_theme=light; CH-time-zone=Asia%2FTokyo' } })
  t.match(again.body, /<html lang="en" class="light"/, 'a cached document still matches its own data')
  t.equal(pageData(again.body).requestInfo.hints.timeZone, 'Asia/Tokyo')
})

t.test('a form rendered from the cache passes the honeypot', async (t) => {
  const { app } = await build(t, {
    honeypot: { timing: false },
    routes (app) {
      app.post('/test/contact', async (request, reply) => {
        assertHuman(request)
        return reply.redirect('/', 303)
      })
    }
  })
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
        setFlashToast(reply, { type: 'success', description: 'Saved.' }, { secure: false })
        return reply.redirect('/', 303)
      })
    }
  })
  const posted = await app.inject({ method: 'POST', url: '/test/toast' })
  const toast = setCookie(posted, FLASH_TOAST_COOKIE)
  const cookie = `${VISITOR.cookie}; ${FLASH_TOAST_COOKIE}=${toast?.value}`
  const shown = await app.inject({ url: '/', headers: { ...VISITOR, cookie } })
  t.equal(pageData(shown.body).toast?.description, 'Saved.')
  t.equal(app.shell.renderCache.size, 0, 'not kept: the toast is for this response only')
  const next = await app.inject({ url: '/', headers: VISITOR })
  t.equal(pageData(next.body).toast, null, 'the next page has no toast')
})

t.test('a document that failed to render is never kept', async (t) => {
  function Thrower (): never {
    throw new Error('boundary failed')
  }
  const pages = [
    ...PAGES,
    definePage({ id: 'shell-fails', path: '/shell-fails', Component: Thrower }),
    definePage({
      id: 'boundary-fails',
      path: '/boundary-fails',
      Component: () => createElement('main', null, createElement(Suspense, { fallback: createElement('p', null, 'Loading…') }, createElement(Thrower)))
    })
  ]
  const { app } = await build(t, { pages, allowErrorLogs: true })
  for (const url of ['/shell-fails', '/boundary-fails', '/shell-fails', '/boundary-fails']) {
    await app.inject({ url, headers: VISITOR })
  }
  t.equal(app.shell.renderCache.size, 0)
})

t.test('a streamed page with a suspended part is kept whole, and served whole', async (t) => {
  const slow = new Promise<string>((resolve) => setTimeout(() => resolve('arrived later'), 20))
  function Later () {
    return createElement('p', null, use(slow))
  }
  const pages = [
    ...PAGES,
    definePage({
      id: 'streams',
      path: '/streams',
      Component: () => createElement('main', null, createElement(Suspense, { fallback: createElement('p', null, 'Loading…') }, createElement(Later)))
    })
  ]
  const { app } = await build(t, { pages })
  const streamed = await app.inject({ url: '/streams', headers: VISITOR })
  t.match(streamed.body, /arrived later/)
  t.equal(app.shell.renderCache.size, 1)
  const cached = await app.inject({ url: '/streams', headers: VISITOR })
  t.match(cached.body, /arrived later/)
  t.match(cached.body, /<\/html>$/, 'the whole document')
})
