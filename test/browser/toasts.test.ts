import t from 'tap'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import type { Toast } from '../../src/shared/page-data.js'
import { launchBrowser, openPage, visit, waitForHydration } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'

const SAVED: Toast = { id: 'browser-saved', type: 'success', title: 'Saved', description: 'Your note was saved.' }

declare global {
  interface Window {
    /** CSP violations seen by the page, recorded by an init script (see watchCsp). */
    __cspViolations?: string[]
  }
}

/** The app with test routes: /test/flash sets a flash toast and redirects home with a 303, as a form action would. */
async function listenWithFlash (t: Parameters<typeof listen>[0]) {
  let served = 0
  return listen(t, {
    routes (app) {
      app.get('/test/flash', async (_request, reply) => {
        app.flashToasts.set(reply, SAVED)
        return reply.redirect('/', 303)
      })
      // A fresh id per visit, as flashToasts.set makes by default.
      app.get('/test/flash-fresh', async (_request, reply) => {
        app.flashToasts.set(reply, { type: 'message', description: `Visit ${++served}` })
        return reply.redirect('/', 303)
      })
    }
  })
}

/**
 * Records CSP violations from the first byte of the document: an init script
 * runs before the page's own and is not subject to its CSP. Chromium also logs
 * them to the console, which openPage's `problems` catches; this is the direct
 * signal, with the directive and what was blocked.
 */
async function watchCsp (page: Page) {
  await page.addInitScript(() => {
    window.__cspViolations = []
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__cspViolations?.push(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sample})`)
    })
  })
  return async () => page.evaluate(() => window.__cspViolations ?? ['the CSP watcher did not run'])
}

async function openWatched (browser: Browser, options: BrowserContextOptions) {
  const watched = await openPage(browser, options)
  return { ...watched, cspViolations: await watchCsp(watched.page) }
}

/** Waits until the toast's enter transition has finished, so its box is where it will stay. */
async function settled (page: Page, selector: string) {
  await page.waitForFunction((selector) => {
    const element = document.querySelector(selector)
    return element instanceof HTMLElement && element.dataset.mounted === 'true' && element.getAnimations().length === 0
  }, selector)
}

t.test('a flash toast after a redirect: top center, themed, shown once, closed by its button', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { page, problems, cspViolations } = await visit(browser, url, { open: openWatched, path: '/test/flash' })
  t.equal(new URL(page.url()).pathname, '/', 'the redirect was followed')

  const toast = page.locator('[data-sonner-toast]')
  await toast.waitFor({ state: 'visible' })
  await settled(page, '[data-sonner-toast]')
  t.equal(await toast.locator('[data-title]').textContent(), 'Saved')
  t.equal(await toast.locator('[data-description]').textContent(), 'Your note was saved.')
  t.equal(await toast.getAttribute('data-type'), 'success')

  const viewport = page.viewportSize()!
  const box = (await toast.boundingBox())!
  t.ok(Math.abs(box.x + box.width / 2 - viewport.width / 2) <= 2, `horizontally centred (centre ${box.x + box.width / 2} of ${viewport.width})`)
  t.ok(box.y >= 0 && box.y <= 64, `near the top (y = ${box.y})`)

  const htmlTheme = await page.evaluate(() => document.documentElement.className)
  t.equal(await page.locator('[data-sonner-toaster]').getAttribute('data-sonner-theme'), htmlTheme, 'the Toaster uses the theme in effect')
  t.ok(await page.locator('.flash-toast').isHidden(), 'the server-rendered fallback is hidden once the toast is shown')

  // Exactly once, despite StrictMode's double effects: a toast fired now is queued behind any
  // duplicate the flash effects could have fired, so once it shows, a duplicate would be there too.
  const marker = page.locator('[data-sonner-toast]', { hasText: 'Marker' })
  await page.evaluate(() => window.__toast?.message('Marker'))
  await marker.waitFor()
  const flash = page.locator('[data-sonner-toast]', { hasText: 'Your note was saved.' })
  t.equal(await flash.count(), 1, 'the flash toast is shown exactly once')

  // The close buttons: the marker's first (it is in front and covers the other), then the flash toast's.
  // Each closes far sooner than the 4 s a toast takes to close by itself.
  await marker.getByRole('button', { name: 'Close toast' }).click()
  await marker.waitFor({ state: 'detached', timeout: 1500 })
  await flash.getByRole('button', { name: 'Close toast' }).click()
  await flash.waitFor({ state: 'detached', timeout: 1500 })
  t.equal(await toast.count(), 0, 'no toast left')

  t.same(await cspViolations(), [], 'no CSP violation')
  t.same(problems, [], 'no console error or warning')
})

t.test('with a saved dark theme the toast is dark too', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { page, problems, cspViolations } = await visit(browser, url, { open: openWatched, savedTheme: 'dark', path: '/test/flash' })
  await page.locator('[data-sonner-toast]').waitFor({ state: 'visible' })
  t.equal(await page.evaluate(() => document.documentElement.className), 'dark', 'the saved theme is in effect')
  t.equal(await page.locator('[data-sonner-toaster]').getAttribute('data-sonner-theme'), 'dark', 'and the Toaster uses it')
  t.same(await cspViolations(), [])
  t.same(problems, [])
})

t.test('a flash toast is not shown again in the same tab, and a new one is', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { page, problems } = await visit(browser, url, { open: openWatched, path: '/test/flash' })
  await page.locator('[data-sonner-toast]', { hasText: 'Your note was saved.' }).waitFor()

  // The same toast (same id) again, as when a back navigation replays a cached page.
  await page.goto(`${url}/test/flash`)
  await waitForHydration({ page, problems })
  await page.locator('.flash-toast').waitFor({ state: 'hidden' })
  await page.evaluate(() => window.__toast?.message('Marker'))
  await page.locator('[data-sonner-toast]', { hasText: 'Marker' }).waitFor()
  t.equal(await page.locator('[data-sonner-toast]', { hasText: 'Your note was saved.' }).count(), 0, 'already shown in this tab')

  await page.goto(`${url}/test/flash-fresh`)
  await waitForHydration({ page, problems })
  await page.locator('[data-sonner-toast]', { hasText: 'Visit 1' }).waitFor()
  t.pass('a new flash toast (a new id) is shown')
  t.same(problems, [])
})

t.test('four toasts in a row show at most three', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { page, problems, cspViolations } = await visit(browser, url, { open: openWatched })

  await page.evaluate(() => {
    for (const n of [1, 2, 3, 4]) window.__toast?.message(`Toast ${n}`)
  })
  const toasts = page.locator('[data-sonner-toast]')
  await page.waitForFunction(() => document.querySelectorAll('[data-sonner-toast][data-mounted="true"]').length === 4)
  // The oldest one is kept but not shown; sonner fades it out (opacity transition).
  const oldest = toasts.filter({ hasText: 'Toast 1' })
  await page.waitForFunction(() => {
    const element = [...document.querySelectorAll('[data-sonner-toast]')].find((node) => node.textContent?.includes('Toast 1'))
    return element !== undefined && getComputedStyle(element).opacity === '0'
  })
  t.equal(await oldest.getAttribute('data-visible'), 'false', 'the fourth from the front is not visible')
  t.equal(await page.locator('[data-sonner-toast][data-visible="true"]').count(), 3, 'three are visible')
  for (const n of [2, 3, 4]) {
    const toast = toasts.filter({ hasText: `Toast ${n}` })
    t.equal(await toast.getAttribute('data-visible'), 'true', `Toast ${n} is one of them`)
    t.not(await toast.evaluate((element) => getComputedStyle(element).opacity), '0')
  }
  t.same(await cspViolations(), [])
  t.same(problems, [])
})

t.test('a toast closes by itself after 4 s', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { page, problems } = await visit(browser, url, { open: openWatched })
  // The page's clock stands still but when moved by hand: a loaded machine would otherwise decide what "4 s" reads.
  await page.clock.install()
  await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000))

  await page.evaluate(() => window.__toast?.error('Goes away', { description: 'After four seconds.' }))
  const toast = page.locator('[data-sonner-toast]', { hasText: 'Goes away' })
  // A few frames for sonner to show it.
  await page.clock.runFor(100)
  await toast.waitFor({ state: 'visible' })
  t.equal(await toast.getAttribute('data-type'), 'error', 'the client API sets the kind')
  t.equal(await toast.locator('[data-description]').textContent(), 'After four seconds.', 'and the description')

  await page.clock.runFor(3400)
  t.equal(await toast.count(), 1, 'still there after 3.5 s')
  t.not(await toast.getAttribute('data-removed'), 'true', 'and not on its way out')

  // 4 s, then sonner's 200 ms exit before it leaves the page.
  await page.clock.runFor(1000)
  await toast.waitFor({ state: 'detached', timeout: 5000 })
  t.pass('gone after 4 s and its exit')
  t.same(problems, [])
})

t.test('without JavaScript the message is in a visible status region', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { page, problems } = await visit(browser, url, { javaScriptEnabled: false, path: '/test/flash' })

  const region = page.getByRole('status')
  t.ok(await region.isVisible(), 'the status region is visible')
  t.equal(await region.getAttribute('aria-live'), 'polite')
  t.equal(await region.textContent(), 'SavedYour note was saved.')
  const box = (await region.boundingBox())!
  t.ok(box.y >= 0 && box.y <= 64, `at the top, where the toast would be (y = ${box.y})`)
  t.equal(await page.locator('[data-sonner-toast]').count(), 0, 'no JavaScript toast')
  t.same(problems, [], 'no CSP violation or other console error')
})

/** sonner's Toaster: its live region is there before any toast. */
const TOASTER = 'section[aria-label^="Notifications"]'

/** The scripts a document loads before hydrating: its entry module and every modulepreload. */
function firstLoadScripts (html: string): Set<string> {
  return new Set([...html.matchAll(/<(?:script type="module" src|link rel="modulepreload"[^>]*? href)="([^"]+\.js)"/g)].map(([, url]) => url!))
}

t.test('sonner is not part of the first load: it arrives when the browser is idle after hydration', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const first = firstLoadScripts(await (await fetch(`${url}/`)).text())
  const { page, problems } = await openPage(browser)
  const later: string[] = []
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname
    if (path.endsWith('.js') && !first.has(path)) later.push(path)
  })
  await page.goto(`${url}/`)
  await waitForHydration({ page, problems })
  await page.locator(TOASTER).waitFor({ state: 'attached' })
  t.ok(later.length > 0, `the Toaster came with JavaScript loaded after the first load (${later.join(', ')})`)
  t.same(problems, [])
})

t.test('a toast asked for before sonner has loaded appears at once, then sonner takes it over', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const first = firstLoadScripts(await (await fetch(`${url}/`)).text())
  const { context, page, problems } = await openPage(browser)
  // Everything loaded after the first load waits until the toast has been asked for.
  let release: () => void = () => {}
  const asked = new Promise<void>((resolve) => { release = resolve })
  await context.route('**/assets/*.js', async (route) => {
    if (!first.has(new URL(route.request().url()).pathname)) await asked
    await route.continue()
  })
  await page.goto(`${url}/`)
  await waitForHydration({ page, problems })
  t.equal(await page.locator(TOASTER).count(), 0, 'sonner has not loaded yet')

  // sonner's code is held until the toast shows: so it shows without waiting for it.
  const { standIn, announced, ariaHidden } = await page.evaluate(() => new Promise<{ standIn: boolean, announced: string | null, ariaHidden: string | null }>((resolve) => {
    new MutationObserver((_records, observer) => {
      const shown = document.querySelector<HTMLElement>('[data-sonner-toast], .flash-toast[data-waiting]')
      if (!shown?.textContent?.includes('Asked for early') || shown.hidden) return
      observer.disconnect()
      resolve({ standIn: shown.matches('.flash-toast'), announced: shown.getAttribute('role') ?? shown.getAttribute('aria-live'), ariaHidden: shown.getAttribute('aria-hidden') })
    }).observe(document.body, { childList: true, subtree: true })
    window.__toast?.success('Asked for early')
  }))
  t.ok(standIn, 'it shows at once, in the box that stands in for sonner while sonner\'s code is still on its way')
  release()
  // sonner's live region announces it once it takes over: the box announcing it too would say it twice.
  t.same({ announced, ariaHidden }, { announced: null, ariaHidden: 'true' }, 'the box that stands in for sonner is seen, not announced')
  const toast = page.locator('[data-sonner-toast]', { hasText: 'Asked for early' })
  await toast.waitFor({ state: 'visible' })
  t.equal(await toast.getAttribute('data-type'), 'success', 'then sonner shows it, as it was asked for')
  t.equal(await page.locator('.flash-toast').count(), 0, 'and the box that stood in for it is gone')
  t.same(problems, [])
})

t.test('when sonner\'s code cannot load, a toast is still shown', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { context, page, problems } = await openPage(browser)
  await context.route('**/assets/toaster-*.js', (route) => route.abort())
  // Loaded when the browser is idle after hydration: refused.
  const failed = page.waitForEvent('console', (message) => message.text().startsWith('Notifications could not be loaded'))
  await page.goto(`${url}/`)
  await waitForHydration({ page, problems })
  await failed
  t.equal(await page.locator(TOASTER).count(), 0, 'no Toaster without its code')

  // The next toast asks for sonner again, which a browser fetches anew only once it follows whatwg/html#10327; until
  // then the box that stands in for sonner keeps showing it.
  await page.evaluate(() => window.__toast?.success('Shown all the same'))
  await page.locator('[data-sonner-toast], .flash-toast', { hasText: 'Shown all the same' }).waitFor({ state: 'visible' })
  t.pass('the toast is on the page')
  t.same(problems.filter((problem) => !/Notifications could not be loaded|ERR_FAILED/.test(problem)), [])
})

t.test('a flash toast brings sonner at once, not when the browser is next idle', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listenWithFlash(t)
  const { page, problems } = await openPage(browser)
  // A page that is never idle: what waits for an idle moment never runs.
  await page.addInitScript(() => { window.requestIdleCallback = () => 0 })
  await page.goto(`${url}/test/flash`)
  await waitForHydration({ page, problems })
  await page.locator('[data-sonner-toast]', { hasText: 'Your note was saved.' }).waitFor({ state: 'visible' })
  t.ok(await page.locator('.flash-toast').isHidden(), 'sonner shows it, and the server\'s box is hidden')
  t.same(problems, [])
})
