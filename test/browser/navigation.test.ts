import { EventEmitter, once } from 'node:events'
import t, { type Test } from 'tap'
import { FLASH_TOAST_COOKIE } from '../../src/server/cookies/flash-toast.js'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { FIRST_LINKS, FIRST_PATH, SECOND_PATH } from '../fixtures/two-pages/first.js'
import { SENT } from '../fixtures/two-pages/first.server.js'
import { TWO_PAGES } from '../fixtures/two-pages/screens.js'
import { setCookie, type BuildOptions } from '../helpers/app.js'
import { launchBrowser, visit } from '../helpers/browser.js'
import { ingestStandIn } from '../helpers/ingest.js'
import { LAYOUT_SHIFT_RECORDER, type Shift } from '../helpers/layout-shifts.js'
import { listen } from '../helpers/server.js'
import { follow, navigate, openTab, prerenderReaches, type PageSession, type Tab } from '../helpers/tab-target.js'
import { buildTestClient } from '../helpers/test-client.js'

// Issue 26: navigation ahead of the click (Speculation Rules), and back/forward restored from the cache, in
// Chromium driven through its tab target (test/helpers/tab-target.ts): Playwright turns both off.

const ENTRY = 'test/fixtures/two-pages/client.tsx'

/** The app with the two pages; `views` collects the second page's view beacons (docs/navigation.md's example). */
async function listenTwoPages (t: Test, options: BuildOptions = {}) {
  const distDir = await buildTestClient(t, ENTRY)
  const views: string[] = []
  const viewed = new EventEmitter()
  const listening = await listen(t, {
    distDir,
    ...options,
    screens: { ...TWO_PAGES, ...options.screens },
    async routes (app) {
      app.post('/resources/page-view', async (request, reply) => {
        views.push(String(request.body))
        viewed.emit('view')
        return reply.status(204).send()
      })
      await options.routes?.(app)
    }
  })
  /** Resolves once `count` views have been counted (fails after 15 s). */
  const viewsCounted = async (count: number) => {
    while (views.length < count) await once(viewed, 'view', { signal: AbortSignal.timeout(15_000) })
  }
  return { ...listening, views, viewsCounted }
}

const hydrated = (page: PageSession) => page.until(`document.documentElement?.dataset.hydrated === 'true'`)

declare global {
  interface Window {
    /** `persisted` of each pageshow. */
    __pageshows: boolean[]
    /** Whether each pagereveal came with a view transition. */
    __transitions: boolean[]
    /** Settles once the last reveal's view transition is over: a click during one lands on its overlay. */
    __revealed?: Promise<boolean>
  }
}

/** What each document records of its navigations and layout shifts, from its first script on. */
const PROBE = LAYOUT_SHIFT_RECORDER + `(${String(() => {
  window.__pageshows = []
  window.__transitions = []
  addEventListener('pageshow', (event) => window.__pageshows.push(event.persisted))
  addEventListener('pagereveal', (event) => {
    const transition = (event as Event & { viewTransition: { finished: Promise<void> } | null }).viewTransition
    window.__transitions.push(transition !== null)
    window.__revealed = transition ? transition.finished.then(() => true, () => true) : Promise.resolve(true)
  })
})})()`

/**
 * What each pagereveal of the page brought, once the first has fired. An activated prerender fires it at its first
 * frame after the click, which can come after the page reads as hydrated.
 */
async function reveals (page: PageSession): Promise<boolean[]> {
  await page.until('window.__revealed !== undefined')
  return page.evaluate('window.__transitions')
}

/** Waits until the page is shown and any view transition into it is over. */
async function revealed (page: PageSession): Promise<void> {
  await page.until('window.__revealed !== undefined')
  await page.evaluate('window.__revealed')
}

/** The first page, loaded in a fresh tab (as a visitor who saved `theme`, if given) and hydrated. */
async function openFirstPage (t: Test, url: string, media?: Record<string, string>, theme?: string): Promise<Tab> {
  const tab = await openTab(t, { initScript: PROBE, ...(media ? { media } : {}) })
  if (theme) await tab.page.send('Network.setCookie', { name: THEME_COOKIE_NAME, value: theme, url })
  await navigate(tab.page, `${url}${FIRST_PATH}`)
  await hydrated(tab.page)
  return tab
}

/** The settings that turn the tracker on, recording to the stand-in at `ingestPoint`. */
const trackerEnv = (ingestPoint: string) => ({ OPENREPLAY_PROJECT_KEY: 'stand-in-project-key', OPENREPLAY_INGEST_POINT: ingestPoint, OPENREPLAY_INSECURE: 'true' })

/** Resolves after the page's next idle period: what the tracker waits for before it starts. */
const idle = (page: PageSession) => page.evaluate('new Promise((resolve) => requestIdleCallback(() => resolve(true), { timeout: 5000 }))')

for (const theme of ['light', 'dark']) {
  t.test(`hover, then click, a link to another page: the page shown was prerendered (${theme})`, async (t) => {
    const { url } = await listenTwoPages(t)
    const tab = await openFirstPage(t, url, undefined, theme)
    await tab.page.hover('#toSecond')
    const target = `${url}${SECOND_PATH}`
    t.same(await prerenderReaches(tab.page, target, 'Ready'), { status: 'Ready', url: target }, 'Chromium prerendered it on hover')
    const shown = await tab.prerendered()
    await hydrated(shown)
    await tab.page.click('#toSecond')
    t.same(await prerenderReaches(tab.page, target, 'Success'), { status: 'Success', url: target }, 'and showed it on the click')
    const navigation = await shown.evaluate<{ activationStart: number, heading: string, prerendering: boolean }>(`({
      activationStart: performance.getEntriesByType('navigation')[0].activationStart,
      heading: document.querySelector('h1').textContent,
      prerendering: document.prerendering
    })`)
    t.ok(navigation.activationStart > 0, `activationStart is after the navigation started (${navigation.activationStart} ms)`)
    t.equal(navigation.heading, 'Second page')
    t.equal(navigation.prerendering, false)
    // Chromium 150 reveals an activated prerender that carries COOP without a view transition
    // (docs/decisions/isolation-over-prerender-transitions.md): the transition is asked of a link the rules leave alone, below.
    t.same(await transitionNames(shown),
      ['site-header', 'theme-switch'], 'in which the header and the theme switch are named, so they stay put while the content changes')
    await revealed(shown)
    t.equal(await shown.evaluate('document.documentElement.className'), theme, 'in the saved theme')
    const { counted, afterInput } = await shown.evaluate<{ counted: Shift[], afterInput: Shift[] }>('({ counted: window.__layoutShifts, afterInput: window.__shiftsAfterInput })')
    // Named in the message, so that the one line a CI run prints of a failure says what moved.
    t.same(counted, [], `and nothing moved, prerendered, shown or hydrated (${JSON.stringify(counted)}; right after input or a resize: ${JSON.stringify(afterInput)})`)
    // Chromium skips the view transition into it, and rejects a promise that the first script keeps quiet (src/shared/skipped-transitions.ts).
    const uncaught = tab.pipe.events.filter((event) => event.sessionId === shown.sessionId && event.method === 'Runtime.exceptionThrown')
    t.same(uncaught.map((event) => event.params.exceptionDetails?.exception?.description), [], 'and no uncaught error was logged')
  })
}

/** The view-transition names of the header and the theme switch, which hold them still while the content changes. */
const transitionNames = (page: PageSession) => page.evaluate(`['.site-header', '.theme-switch'].map((selector) => getComputedStyle(document.querySelector(selector)).viewTransitionName)`)

/** Follows the first page's link that the rules never fetch ahead, and waits for the page it leads to to hydrate. */
async function followOptedOut (tab: Tab): Promise<PageSession> {
  await follow(tab.page, '#optedOut')
  await hydrated(tab.page)
  return tab.page
}

t.test('a link to another page is followed with a view transition that keeps the header and the theme switch in place', async (t) => {
  const { url } = await listenTwoPages(t)
  const shown = await followOptedOut(await openFirstPage(t, url))
  t.equal(await shown.evaluate('document.querySelector(\'h1\').textContent'), 'Second page')
  const transitions = await reveals(shown)
  // The reveals are named in the message: a CI run prints only its first line.
  t.same(transitions, [true], `it was revealed with a view transition (reveals: ${JSON.stringify(transitions)})`)
  t.same(await transitionNames(shown),
    ['site-header', 'theme-switch'], 'named, so they stay put while the content changes')
})

const PLAIN_SWAPS: Array<Record<string, string>> = [{ 'prefers-reduced-motion': 'reduce' }, { 'forced-colors': 'active' }]

for (const media of PLAIN_SWAPS) {
  const [[feature, value]] = Object.entries(media) as [[string, string]]
  t.test(`with ${feature}: ${value}, a page is shown without a view transition`, async (t) => {
    const { url } = await listenTwoPages(t)
    const shown = await followOptedOut(await openFirstPage(t, url, media))
    t.equal(await shown.evaluate(`matchMedia('(${feature}: ${value})').matches`), true, 'the page reads the preference')
    t.same(await reveals(shown), [false], 'no view transition')
  })
}

t.test('the rules are valid, and name only the links that may be fetched ahead', async (t) => {
  const { url } = await listenTwoPages(t)
  const tab = await openFirstPage(t, url)
  const ruleSet = await tab.pipe.waitFor('the rule set', (event) => event.method === 'Preload.ruleSetUpdated' && event.sessionId === tab.page.sessionId)
  t.notOk(ruleSet.params.ruleSet.errorType, `Chromium accepted the inline rules (CSP nonce included): ${ruleSet.params.ruleSet.errorMessage ?? ''}`)
  const { loaderId } = ruleSet.params.ruleSet
  // Chromium lists every link a rule matches, whatever its eagerness, once the document is parsed.
  const sources = await tab.pipe.waitFor('the links the rules match', (event) => event.method === 'Preload.preloadingAttemptSourcesUpdated' && event.params.loaderId === loaderId && event.params.preloadingAttemptSources.length > 0)
  const candidates = (sources.params.preloadingAttemptSources as Array<{ key: { action: string, url: string } }>).map(({ key }) => `${key.action} ${key.url.slice(url.length)}`).sort()
  t.same(candidates, ['Prefetch ' + FIRST_LINKS.prefetchOnly, 'Prerender /', 'Prerender ' + FIRST_LINKS.toSecond].sort(),
    'the header\'s home link and the second page are prerendered, the marked one only prefetched; the opted-out link, /resources/* and the form action (with a trailing slash too) never')
})

t.test('with the tracker on, a prerendered page starts no session before it is shown', async (t) => {
  const ingest = await ingestStandIn(t)
  const { url, views, viewsCounted } = await listenTwoPages(t, { env: trackerEnv(ingest.ingestPoint) })
  const tab = await openFirstPage(t, url)
  const starts = () => ingest.calls('/v1/web/start').length
  await ingest.waitFor('the first page\'s start', (request) => request.method === 'POST' && request.endpoint === '/v1/web/start')

  await tab.page.hover('#toSecond')
  const target = `${url}${SECOND_PATH}`
  t.equal((await prerenderReaches(tab.page, target, 'Ready')).status, 'Ready', 'the second page is prerendered')
  const prerendered = await tab.prerendered()
  await hydrated(prerendered)
  await idle(prerendered)
  t.equal(await prerendered.evaluate('document.prerendering'), true, 'hydrated and idle, and still not shown')
  // The library may itself hold its request back while the page is hidden: the page must not even create it.
  t.equal(await prerendered.evaluate('typeof window.__OPENREPLAY__'), 'undefined', 'the tracker is not created while the page is prerendered')
  t.equal(starts(), 1, 'no start request from the prerendered page')
  t.same(views, [], 'nor a view counted (docs/navigation.md\'s example)')

  await tab.page.click('#toSecond')
  t.equal((await prerenderReaches(tab.page, target, 'Success')).status, 'Success')
  const first = ingest.calls('/v1/web/start')[0]
  await ingest.waitFor('the second page\'s start', (request) => request.method === 'POST' && request.endpoint === '/v1/web/start' && request !== first)
  t.equal(starts(), 2, 'once shown, it starts its session: one start per page the visitor saw')
  await viewsCounted(1)
  t.same(views, [SECOND_PATH], 'and counts its view')
})

t.test('a flash toast waiting survives a prerender, and shows once on the page the visitor sees', async (t) => {
  const { app, url } = await listenTwoPages(t, {
    routes (app) {
      app.post('/test/act', async (_request, reply) => {
        app.flashToasts.set(reply, { id: 'saved', type: 'success', description: 'Your note was saved.' })
        return reply.redirect(FIRST_PATH, 303)
      })
    }
  })
  const tab = await openFirstPage(t, url)
  // The cookie an action left: set by the server, as the visitor's browser would hold it.
  const action = await app.inject({ method: 'POST', url: '/test/act', headers: { accept: 'text/html' } })
  await tab.page.send('Network.setCookie', { name: FLASH_TOAST_COOKIE, value: setCookie(action, FLASH_TOAST_COOKIE)?.value, url, httpOnly: true, sameSite: 'Lax' })

  await tab.page.hover('#toSecond')
  const target = `${url}${SECOND_PATH}`
  const verdict = await prerenderReaches(tab.page, target, 'Ready')
  t.equal(verdict.status, 'Failure', `Chromium gave up the prerender the server refused (${verdict.reason})`)
  const cookies = async () => ((await tab.page.send('Network.getCookies', { urls: [url] })).cookies as Array<{ name: string }>).map(({ name }) => name)
  t.ok((await cookies()).includes(FLASH_TOAST_COOKIE), 'the toast is still waiting')

  await follow(tab.page, '#toSecond')
  const second = tab.page
  t.equal(await second.evaluate('location.pathname'), SECOND_PATH)
  await second.until(`[...document.querySelectorAll('[data-sonner-toast]')].some((toast) => toast.textContent.includes('Your note was saved.'))`)
  t.pass('the page the visitor sees shows the toast')
  t.notOk((await cookies()).includes(FLASH_TOAST_COOKIE), 'and took it')
})

for (const tracker of [false, true]) {
  t.test(`going back restores the page from the back/forward cache, with the theme chosen meanwhile (tracker ${tracker ? 'on' : 'off'})`, async (t) => {
    const ingest = tracker ? await ingestStandIn(t) : undefined
    const { url } = await listenTwoPages(t, ingest ? { env: trackerEnv(ingest.ingestPoint) } : {})
    /** With the tracker on, waits until the page shown has started its session (and opened what it keeps open). */
    const recording = async (count: number) => {
      if (ingest) await ingest.waitFor(`start ${count}`, () => ingest.calls('/v1/web/start').length >= count)
    }
    const tab = await openTab(t, { initScript: PROBE })
    await tab.page.send('Network.setCookie', { name: THEME_COOKIE_NAME, value: 'light', url })
    await navigate(tab.page, `${url}${FIRST_PATH}`)
    await hydrated(tab.page)
    await recording(1)
    t.equal(await tab.page.evaluate('document.documentElement.className'), 'light')

    // The opted-out link: a plain navigation, so the tab keeps its one page target.
    const second = tab.page
    await follow(second, '#optedOut')
    t.equal(await second.evaluate('location.pathname'), SECOND_PATH)
    await hydrated(second)
    await revealed(second)
    await recording(2)
    await second.click('.theme-switch button')
    await second.until(`document.documentElement.className === 'dark' && document.cookie.includes('${THEME_COOKIE_NAME}=dark')`)

    const back = tab.pipe.events.length
    await second.evaluate('history.back()')
    await tab.pipe.waitFor('the first page again', (event) => event.method === 'Page.frameNavigated' && event.params.frame?.url === `${url}${FIRST_PATH}`, back)
    const first = tab.page
    await first.until('window.__pageshows.length === 2')
    t.same(tab.pipe.events.slice(back).filter((event) => event.method === 'Page.backForwardCacheNotUsed').map((event) => event.params.notRestoredExplanations), [], 'Chromium restored it from the cache')
    t.same(await first.evaluate('window.__pageshows'), [false, true], 'pageshow says persisted')
    await first.until(`document.documentElement.className === 'dark'`)
    t.pass('the restored page shows the theme chosen on the other page')
  })
}

/** Sends the first page's form (in the background: the page has hydrated) and waits for the second page it leads to. */
async function sendFirstForm (tab: Tab, url: string, press: () => Promise<unknown> = () => tab.page.click('.form-submit')): Promise<void> {
  const from = tab.pipe.events.length
  await press()
  await tab.pipe.waitFor('the page the form leads to', (event) => event.method === 'Page.frameNavigated' && event.params.frame?.url === `${url}${SECOND_PATH}`, from)
}

t.test('a page prerendered before a form was sent is dropped: the page the form leads to is fetched again, with its toast', async (t) => {
  const { url } = await listenTwoPages(t, { honeypot: { minDelayMs: 0 } })
  const tab = await openFirstPage(t, url)
  await tab.page.hover('#toSecond')
  const target = `${url}${SECOND_PATH}`
  t.equal((await prerenderReaches(tab.page, target, 'Ready')).status, 'Ready', 'the second page was prerendered on hover')
  const sent = tab.pipe.events.length
  await tab.page.click('.form-submit')
  const verdict = await prerenderReaches(tab.page, target, 'Success', sent)
  t.equal(verdict.status, 'Failure', 'the prerender made before the action is not shown')
  t.match(verdict.reason, /BrowsingDataRemoved/, 'Chromium dropped it as the action\'s answer asked')
  await tab.pipe.waitFor('the second page, fetched again', (event) => event.method === 'Page.frameNavigated' && event.params.frame?.url === target, sent)
  await tab.page.until(`[...document.querySelectorAll('[data-sonner-toast]')].some((toast) => toast.textContent.includes(${JSON.stringify(SENT)}))`)
  t.pass('the second page, fetched after the action, shows its toast')
})

t.test('a form sent in the background, left, then brought back by Back, is no longer sending and can be sent again', async (t) => {
  const { url } = await listenTwoPages(t, { honeypot: { minDelayMs: 0 } })
  const tab = await openFirstPage(t, url)
  await sendFirstForm(tab, url)
  await hydrated(tab.page)
  const back = tab.pipe.events.length
  await tab.page.evaluate('history.back()')
  await tab.pipe.waitFor('the first page again', (event) => event.method === 'Page.frameNavigated' && event.params.frame?.url === `${url}${FIRST_PATH}`, back)
  await tab.page.until('window.__pageshows.length === 2')
  t.same(tab.pipe.events.slice(back).filter((event) => event.method === 'Page.backForwardCacheNotUsed').map((event) => event.params.notRestoredExplanations), [], 'Chromium restored it from the cache')
  t.same(await tab.page.evaluate(`({ label: document.querySelector('.form-submit').textContent, busy: document.querySelector('.form-submit').getAttribute('aria-disabled') })`),
    { label: 'Send', busy: null }, 'its button is no longer busy')
  // Chromium's DevTools input does not reach a page restored from the cache here, so the button is clicked from within.
  await sendFirstForm(tab, url, () => tab.page.evaluate(`document.querySelector('.form-submit').click()`))
  t.pass('and sending it again leads on')
})

t.test('with JavaScript off, every link still navigates', async (t) => {
  const { url } = await listenTwoPages(t)
  const browser = await launchBrowser(t)
  const { page, context } = await visit(browser, url, { path: FIRST_PATH, javaScriptEnabled: false })
  t.teardown(() => context.close())
  await Promise.all([page.waitForURL(`${url}${SECOND_PATH}`), page.click('#toSecond')])
  t.equal(await page.locator('h1').textContent(), 'Second page')
  await Promise.all([page.waitForURL(`${url}${FIRST_PATH}`), page.click('#toFirst')])
  t.equal(await page.locator('h1').textContent(), 'First page')
  for (const id of ['prefetchOnly', 'optedOut'] as const) {
    await Promise.all([page.waitForURL(`${url}${FIRST_LINKS[id]}`), page.click(`#${id}`)])
    t.equal(await page.locator('h1').textContent(), 'Second page', `the ${id} link`)
    await page.goBack()
  }
})
