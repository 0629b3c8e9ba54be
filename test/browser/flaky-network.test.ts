import type { Page, Route } from 'playwright-core'
import t, { type Test } from 'tap'
import { hydrated, launchWithScheme, openThemePage, rootTheme } from '../helpers/theme.js'
import { listen } from '../helpers/server.js'
import { CODE_TIME_LIMIT_MS } from '../../src/ui/load-once.js'

/**
 * A visitor on a bad network, in Chromium: code fetched after hydration that fails to arrive, requests that fail or
 * never end. What they came to do still gets done, or they are told why not, in words.
 */

const switchButton = (page: Page, mode: 'System' | 'Light' | 'Dark') => page.getByRole('button', { name: `Theme: ${mode}` })

async function savedTheme (page: Page): Promise<string | undefined> {
  return (await page.context().cookies()).find((cookie) => cookie.name === 'en_theme')?.value
}

/** Holds the first request for the theme switch's code (loaded when the browser is idle) until the test lets it fail. */
async function holdThemeSyncCode (page: Page): Promise<() => Promise<Route>> {
  let held: (route: Route) => void = () => {}
  const arrived = new Promise<Route>((resolve) => { held = resolve })
  await page.context().route('**/assets/theme-sync-*.js', (route) => held(route), { times: 1 })
  return () => arrived
}

// Chromium logs a resource that failed as a console error; only the ones a test provokes are expected.
const unprovoked = (problems: string[]) => problems.filter((problem) => !/ERR_CONNECTION_RESET|ERR_INTERNET_DISCONNECTED/.test(problem))

/** A page whose theme switch's code is on its way and held there, pressed twice: the last choice (dark) is the one that
 * counts. Resolves with the held request, to fail it or leave it hanging. */
async function pressedTwiceWhileCodeHeld (t: Test) {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await openThemePage(browser)
  const codeRequest = await holdThemeSyncCode(page)
  await page.goto(`${url}/`)
  await hydrated(page)
  const code = await codeRequest()
  await switchButton(page, 'System').click()
  await switchButton(page, 'Light').click()
  t.equal((await rootTheme(page)).className, 'dark', 'dark at once')
  const posted = (timeout: number) => page.waitForRequest((request) => request.url() === `${url}/resources/theme-switch` && request.isNavigationRequest(), { timeout })
  const back = page.waitForResponse((response) => response.url() === `${url}/` && response.request().method() === 'GET')
  return { page, problems, code, posted, back }
}

t.test('the theme switch\'s code failing to arrive once: presses still switch, saved by the form\'s own POST', async (t) => {
  const { page, problems, code, posted, back } = await pressedTwiceWhileCodeHeld(t)
  // Chromium keeps this failure for the page's life: every later import() of the chunk fails without a request.
  const sent = posted(5000)
  await code.abort('connectionreset')
  t.equal((await sent).postDataJSON().theme, 'dark', 'the browser sends the form, with the last choice')
  await back
  await hydrated(page)
  t.equal(await savedTheme(page), 'dark', 'the server saved it')
  const state = await rootTheme(page)
  t.same({ className: state.className, source: state.source }, { className: 'dark', source: 'saved' }, 'back on the page, dark as saved')
  t.equal(await switchButton(page, 'Dark').count(), 1, 'and the button says so')
  // Chromium may skip the cross-document view transition into the page the POST leads to; the first script keeps it quiet.
  t.same(unprovoked(problems), [])
})

t.test('the theme switch\'s code never arriving: at the time limit the browser sends the form itself', async (t) => {
  // Held for good: neither answered nor failed, as on a connection that stalled.
  const { page, problems, posted, back } = await pressedTwiceWhileCodeHeld(t)
  t.equal((await posted(CODE_TIME_LIMIT_MS + 5000)).postDataJSON().theme, 'dark', 'the browser sends the form, with the last choice')
  await back
  await hydrated(page)
  t.equal(await savedTheme(page), 'dark', 'the server saved it')
  t.equal((await rootTheme(page)).className, 'dark', 'and the page shows it')
  t.same(unprovoked(problems), [])
})

t.test('offline, with the theme switch\'s code failed: the switch reverts and says the server could not be reached', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, context, problems } = await openThemePage(browser)
  const codeRequest = await holdThemeSyncCode(page)
  await context.addCookies([{ name: 'en_theme', value: 'dark', url }])
  await page.goto(`${url}/`)
  await hydrated(page)
  const code = await codeRequest()
  // sonner loads when the browser is idle: gone offline before, its failed fetch would be a console error of its own.
  await page.locator('section[aria-label^="Notifications"]').waitFor({ state: 'attached' })
  await context.setOffline(true)
  let documents = 0
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) documents++ })

  await switchButton(page, 'Dark').click()
  await code.abort('internetdisconnected')
  const toast = page.locator('[data-sonner-toast], .flash-toast', { hasText: 'The theme could not be changed' })
  await toast.waitFor({ state: 'visible' })
  t.match(await toast.textContent(), /could not be reached/, 'the toast says why')
  await page.waitForFunction(() => document.documentElement.getAttribute('data-theme-source') === 'saved')
  t.equal((await rootTheme(page)).className, 'dark', 'back to the saved dark')
  t.equal(await savedTheme(page), 'dark')
  t.equal(documents, 0, 'no attempt to send the form, which offline would only show the browser\'s error page')
  t.same(unprovoked(problems), [])
})

t.test('a theme switch whose answer is cut off after its cookie arrived: the page shows what was saved, says nothing failed, and tells the other tabs', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t)
  const { page, context, problems } = await openThemePage(browser)
  const other = await context.newPage()
  await page.goto(`${url}/`)
  await other.goto(`${url}/`)
  await Promise.all([hydrated(page), hydrated(other)])
  // The headers, Set-Cookie among them, came whole; the connection dropped in the JSON.
  await page.route('**/resources/theme-switch', (route) => route.fulfill({
    status: 200,
    headers: { 'content-type': 'application/json', 'set-cookie': 'en_theme=light; Path=/; SameSite=Lax' },
    body: '{"the'
  }), { times: 1 })

  await switchButton(page, 'System').click()
  await page.waitForFunction(() => document.documentElement.getAttribute('data-theme-source') !== 'pending')
  t.equal(await savedTheme(page), 'light', 'the browser kept the cookie')
  const state = await rootTheme(page)
  t.same({ className: state.className, source: state.source }, { className: 'light', source: 'saved' }, 'the page shows the saved choice, as the next page will')
  t.equal(await switchButton(page, 'Light').count(), 1, 'and the button says so')
  t.equal(await page.locator('[data-sonner-toast], .flash-toast', { hasText: 'could not be changed' }).count(), 0, 'no toast says it failed')
  await other.waitForFunction(() => document.documentElement.className === 'light', undefined, { timeout: 5000 })
  t.equal(await switchButton(other, 'Light').count(), 1, 'the other tab follows, as after any save')
  t.same(unprovoked(problems), [])
})

t.test('sonner\'s code failing to arrive: the box standing in for it is announced, so a failed switch is heard too', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, context, problems } = await openThemePage(browser)
  // Every time: Chromium asks for a failed chunk only once anyway (whatwg/html#10327).
  await context.route('**/assets/toaster-*.js', (route) => route.abort('connectionreset'))
  const failed = page.waitForEvent('console', (message) => message.text().startsWith('Notifications could not be loaded'))
  await page.goto(`${url}/`)
  await hydrated(page)
  await failed
  await page.route('**/resources/theme-switch', (route) => route.fulfill({ status: 503, contentType: 'text/html', body: '<h1>Service Unavailable</h1>' }), { times: 1 })

  await switchButton(page, 'System').click()
  const status = page.getByRole('status').filter({ hasText: 'The theme could not be changed' })
  await page.locator('.flash-toast', { hasText: 'The theme could not be changed' }).waitFor({ state: 'visible' })
  t.equal(await status.count(), 1, 'shown in a status region, as the server\'s flash toast is')
  t.match(await status.textContent({ timeout: 2000 }), /did not save it \(503\)/, 'with what happened')
  t.same(unprovoked(problems).filter((problem) => !/Notifications could not be loaded|status of 503/.test(problem)), [])
})
