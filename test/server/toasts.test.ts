import t from 'tap'
import { defineScreen } from '../../src/ui/define-screen.js'
import type { LightMyRequestResponse } from 'fastify'
import { FLASH_TOAST_COOKIE } from '../../src/server/cookies/flash-toast.js'
import type { Toast } from '../../src/shared/page-data.js'
import { build, pageData, setCookie, type BuildOptions } from '../helpers/app.js'
import { screen } from '../helpers/screens.js'

/** Asserts, from the top-level test or a subtest. */
type Asserts = Pick<typeof t, 'equal' | 'ok' | 'notOk' | 'match' | 'notMatch' | 'same'>

const SAVED: Toast = { id: 'note-saved-1', type: 'success', title: 'Saved', description: 'Your note was saved.' }

/** The app with a route, built here, that acts like a form handler: a flash toast, then a 303 home. */
async function buildWithAction (test: Parameters<typeof build>[0], toast: Toast = SAVED, options: Omit<BuildOptions, 'routes'> = {}) {
  return build(test, {
    ...options,
    routes (app) {
      app.post('/test/act', async (_request, reply) => {
        app.flashToasts.set(reply, toast)
        return reply.redirect('/', 303)
      })
    }
  })
}

/** The server-rendered status region that carries the flash toast for visitors without JavaScript, or undefined. */
function statusRegion (html: string): string | undefined {
  return /<div role="status" aria-live="polite" class="flash-toast"[^>]*>[\s\S]*?<\/div>/.exec(html)?.[0]
}

/** Asserts the response deletes the toast cookie (empty, expired, same Path as when set). */
function assertCleared (test: Asserts, response: LightMyRequestResponse) {
  const cookie = setCookie(response, FLASH_TOAST_COOKIE)
  test.ok(cookie, 'the toast cookie is cleared in the same response')
  test.equal(cookie?.value, '')
  test.equal(cookie?.maxAge, 0)
  test.equal(cookie?.path, '/')
}

/** Asserts a page that carries no flash toast: none in the page data, no status region. */
function assertNoToast (test: Asserts, response: LightMyRequestResponse) {
  test.equal(response.statusCode, 200, 'the page renders, never a 500')
  test.equal(pageData(response.body).toast, null, 'no toast in the page data')
  test.equal(statusRegion(response.body), undefined, 'no status region')
}

t.test('a redirect with a flash toast: the next page carries it once and clears the cookie', async (t) => {
  const { app } = await buildWithAction(t)
  const action = await app.inject({ method: 'POST', url: '/test/act', headers: { accept: 'text/html' } })
  t.equal(action.statusCode, 303)
  t.equal(action.headers.location, '/')
  const cookie = setCookie(action, FLASH_TOAST_COOKIE)
  t.ok(cookie?.value, 'the redirect sets the toast cookie')
  t.ok(cookie?.httpOnly, 'HttpOnly')
  t.equal(cookie?.sameSite, 'Lax')

  const next = await app.inject({ url: '/', headers: { accept: 'text/html' }, cookies: { [FLASH_TOAST_COOKIE]: cookie!.value } })
  t.equal(next.statusCode, 200)
  t.same(pageData(next.body).toast, SAVED, 'the page data carries the toast as it was set')
  t.equal(next.body.split(SAVED.id).length - 1, 1, 'exactly once: its id appears only in the page data')
  assertCleared(t, next)
  t.match(next.headers['cache-control'], /private/, 'a page that carries a toast is never shared by caches')

  const region = statusRegion(next.body)
  t.ok(region, 'the message is rendered in a polite status region for visitors without JavaScript')
  t.match(region, '<strong class="flash-toast-title">Saved</strong>')
  t.match(region, '<span class="flash-toast-description">Your note was saved.</span>')
  t.match(region, 'data-type="success"')
  t.notMatch(region, /\shidden/, 'visible until the client has handed it to the Toaster')

  // The browser deleted the cookie as told: the request after that has no toast and sets no cookie.
  const after = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  assertNoToast(t, after)
  t.equal(setCookie(after, FLASH_TOAST_COOKIE), undefined, 'and no Set-Cookie for it')
})

t.test('a page that fails on the server shows the toast on its 500 page, whether its loader threw or its shell did', async (t) => {
  // The action it speaks of succeeded: a visitor told only "Something went wrong" would think it had not, and send again.
  const broken = (): never => { throw new Error('the shell failed') }
  const { app } = await buildWithAction(t, SAVED, {
    allowErrorLogs: true,
    screens: {
      'loader-fails': screen(defineScreen({ path: '/loader-fails', component: () => null }), { loader: () => { throw new Error('the loader failed') } }),
      'shell-fails': screen(defineScreen({ path: '/shell-fails', component: broken }))
    }
  })
  for (const path of ['/loader-fails', '/shell-fails']) {
    const action = await app.inject({ method: 'POST', url: '/test/act' })
    const page = await app.inject({ url: path, headers: { accept: 'text/html' }, cookies: { [FLASH_TOAST_COOKIE]: setCookie(action, FLASH_TOAST_COOKIE)!.value } })
    t.equal(page.statusCode, 500, path)
    t.match(page.body, '<h1>Something went wrong</h1>')
    t.same(pageData(page.body).toast, SAVED, `${path}: the toast is in the page data`)
    t.match(statusRegion(page.body), '<span class="flash-toast-description">Your note was saved.</span>', `${path}: and shown without JavaScript`)
    assertCleared(t, page)
  }
})

t.test('the server renders the flash toast\'s status region but no Toaster, and no inline style attribute', async (t) => {
  const { app } = await buildWithAction(t)
  const action = await app.inject({ method: 'POST', url: '/test/act' })
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' }, cookies: { [FLASH_TOAST_COOKIE]: setCookie(action, FLASH_TOAST_COOKIE)!.value } })
  const body = page.body
  const region = body.indexOf('<div role="status" aria-live="polite" class="flash-toast"')
  t.ok(region > body.indexOf('<body>') && region < body.indexOf('</body>'), 'the status region is inside <body>')
  t.notMatch(body, '<section aria-label="Notifications', 'sonner\'s Toaster is the browser\'s: it loads after hydration')
  // style-src has no 'unsafe-inline': a style attribute in the markup would be refused and logged.
  t.notMatch(body, /<[^>]+\sstyle=/, 'no inline style attribute anywhere in the document')
  t.notMatch(body, /<style[\s>]/, 'no <style> element either')
  t.match(page.headers['content-security-policy'], /style-src 'self'(;|$)/, 'the CSP under test allows no inline style attributes')
})

t.test('a hostile toast stays text: escaped in the status region and in the page data', async (t) => {
  const hostile: Toast = { id: 'x', type: 'error', title: '<img src=x onerror=alert(1)>', description: '</script><script>alert(1)</script>\u2028' }
  const { app } = await buildWithAction(t, hostile)
  const action = await app.inject({ method: 'POST', url: '/test/act' })
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' }, cookies: { [FLASH_TOAST_COOKIE]: setCookie(action, FLASH_TOAST_COOKIE)!.value } })
  t.notMatch(page.body, '<script>alert(1)</script>')
  t.notMatch(page.body, '<img src=x')
  t.match(statusRegion(page.body), '&lt;img src=x onerror=alert(1)&gt;')
  t.same(pageData(page.body).toast, hostile, 'the page data reads back exactly the same value')
})

t.test('a tampered, unsigned or garbage cookie is ignored and cleared, never a 500', async (t) => {
  const { app, logs } = await buildWithAction(t)
  const action = await app.inject({ method: 'POST', url: '/test/act' })
  const signed = setCookie(action, FLASH_TOAST_COOKIE)!.value
  const payload = signed.slice(0, signed.lastIndexOf('.'))
  const forged = Buffer.from(JSON.stringify({ ...SAVED, description: 'Forged' })).toString('base64url')
  const cases: Record<string, string> = {
    'tampered payload': forged + signed.slice(signed.lastIndexOf('.')),
    'tampered signature': payload + '.' + 'A'.repeat(signed.length - payload.length - 1),
    unsigned: payload,
    garbage: '%%%not-a-cookie%%%',
    empty: ''
  }
  for (const [name, value] of Object.entries(cases)) {
    await t.test(name, async (t) => {
      const page = await app.inject({ url: '/', headers: { accept: 'text/html' }, cookies: { [FLASH_TOAST_COOKIE]: value } })
      assertNoToast(t, page)
      assertCleared(t, page)
    })
  }
  const raw = await app.inject({ url: '/', headers: { accept: 'text/html', cookie: `${FLASH_TOAST_COOKIE}="unbalanced; other=%E0%A4%A` } })
  assertNoToast(t, raw)
  assertCleared(t, raw)
  t.same(logs.filter((entry) => entry.level >= 50), [], 'nothing was logged as an error')
  // Control: the untampered cookie is accepted by the same app.
  t.same(pageData((await app.inject({ url: '/', cookies: { [FLASH_TOAST_COOKIE]: signed } })).body).toast, SAVED)
})
