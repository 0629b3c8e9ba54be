import type { Browser, BrowserContextOptions, Page, Route } from 'playwright-core'
import t from 'tap'
import { visit, type WatchedPage } from '../helpers/browser.js'
import { BACKGROUNDS, hydrated, launchWithScheme, openThemePage, rootTheme, themeColorMetas, themeRecord } from '../helpers/theme.js'
import { listen } from '../helpers/server.js'

/** The switch's button, found by the accessible name that tells the current mode. */
const switchButton = (page: Page, mode: 'System' | 'Light' | 'Dark') => page.getByRole('button', { name: `Theme: ${mode}` })

/** Holds the next theme-switch request until the test lets it through (or fails it). */
function holdThemeSwitch (page: Page): Promise<Route> {
  return new Promise((resolve) => {
    void page.route('**/resources/theme-switch', (route) => resolve(route), { times: 1 })
  })
}

async function savedTheme (page: Page): Promise<string | undefined> {
  return (await page.context().cookies()).find((cookie) => cookie.name === 'en_theme')?.value
}

// Chromium logs a failed fetch as a console error; only the ones a test provokes are expected.
const provoked = (problems: string[], pattern: RegExp) => problems.filter((problem) => !pattern.test(problem))

t.test('without JavaScript the form switches through the redirect and lands back on the same page', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await visit(browser, url, { open: openThemePage, javaScriptEnabled: false, path: '/?from=test#top' })

  const steps: Array<{ press: 'System' | 'Light' | 'Dark', then: 'System' | 'Light' | 'Dark', theme: 'light' | 'dark', cookie: string | undefined }> = [
    { press: 'System', then: 'Light', theme: 'light', cookie: 'light' },
    { press: 'Light', then: 'Dark', theme: 'dark', cookie: 'dark' },
    { press: 'Dark', then: 'System', theme: 'light', cookie: undefined }
  ]
  for (const step of steps) {
    const loaded = page.waitForEvent('load')
    await switchButton(page, step.press).click()
    await loaded
    t.equal(new URL(page.url()).pathname + new URL(page.url()).search, '/?from=test', `${step.then}: back on the same page and query`)
    t.equal(await switchButton(page, step.then).count(), 1, `${step.then}: the button tells the new mode`)
    t.equal(await savedTheme(page), step.cookie, `${step.then}: the cookie says ${step.cookie ?? 'nothing (system)'}`)
    const state = await rootTheme(page)
    t.equal(state.className, step.theme)
    t.equal(state.background, BACKGROUNDS[step.theme], `${step.then}: painted ${step.theme}`)
  }
  t.same(problems, [])
})

t.test('with JavaScript the switch is optimistic: the theme changes before the server answers', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, context, problems } = await openThemePage(browser)
  await context.addCookies([{ name: 'en_theme', value: 'light', url }])
  let documents = 0
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) documents++ })
  await page.goto(`${url}/`)
  await hydrated(page)

  const held = holdThemeSwitch(page)
  // From the keyboard: a pointer would start the button's own hover transition.
  await switchButton(page, 'Light').press('Enter')
  const route = await held
  // The request is still held here: everything below happened before any answer.
  await page.waitForFunction(() => document.documentElement.className === 'dark')
  const pending = await rootTheme(page)
  t.equal(pending.background, BACKGROUNDS.dark, 'painted dark at once')
  t.equal(pending.source, 'pending', 'the pending submission wins')
  t.equal(pending.colorScheme, 'dark')
  t.same(await themeColorMetas(page), ['(prefers-color-scheme: light) #0b1120', '(prefers-color-scheme: dark) #0b1120'], 'theme-color follows, in both metas')
  t.equal(await switchButton(page, 'Dark').count(), 1, 'the button already tells the new mode')
  t.equal(await savedTheme(page), 'light', 'the cookie is not changed yet')
  t.equal(route.request().headers().accept, 'application/json', 'the background request asks for JSON')
  t.equal(route.request().postData(), 'theme=dark')

  const answered = page.waitForResponse('**/resources/theme-switch')
  await route.continue()
  const response = await answered
  t.equal(response.status(), 200)
  t.same(await response.json(), { theme: 'dark' })
  await page.waitForFunction(() => document.documentElement.getAttribute('data-theme-source') === 'saved')
  t.equal(await savedTheme(page), 'dark', 'the server saved it')
  t.equal((await rootTheme(page)).className, 'dark', 'and the theme stays')
  t.equal(documents, 1, 'no navigation or reload')

  const { transitions, violations } = await themeRecord(page)
  t.same(transitions, [], 'no CSS transition ran while the theme changed')
  t.same(violations, [])
  t.same(problems, [])
})

t.test('a switch the server refuses reverts and says so in a toast', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t)
  const { page, problems } = await visit(browser, url, { open: openThemePage })
  t.equal((await rootTheme(page)).className, 'dark', 'system on a dark OS')

  const held = holdThemeSwitch(page)
  await switchButton(page, 'System').click()
  const route = await held
  await page.waitForFunction(() => document.documentElement.className === 'light')
  await route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"busy"}' })

  const toast = page.locator('[data-sonner-toast]', { hasText: 'The theme could not be changed' })
  await toast.waitFor({ state: 'visible' })
  t.match(await toast.textContent(), /did not save it \(503\)/, 'the toast says what happened')
  t.equal(await page.locator('[data-sonner-toaster]').getAttribute('data-sonner-theme'), 'dark', 'in the theme in effect')
  const state = await rootTheme(page)
  t.equal(state.className, 'dark', 'reverted')
  t.equal(state.background, BACKGROUNDS.dark)
  t.equal(state.source, 'hint')
  t.equal(await switchButton(page, 'System').count(), 1, 'the button tells the mode in effect again')
  t.equal(await savedTheme(page), undefined, 'nothing saved')
  t.same(provoked(problems, /status of 503/), [])
})

t.test('a switch that cannot reach the server reverts and says so in a toast', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await visit(browser, url, { open: openThemePage, savedTheme: 'dark' })

  const held = holdThemeSwitch(page)
  await switchButton(page, 'Dark').click()
  const route = await held
  t.equal((await rootTheme(page)).source, 'hint', 'system now: the OS scheme (light)')
  await route.abort('internetdisconnected')

  const toast = page.locator('[data-sonner-toast]', { hasText: 'The theme could not be changed' })
  await toast.waitFor({ state: 'visible' })
  t.match(await toast.textContent(), /could not be reached/)
  await page.waitForFunction(() => document.documentElement.className === 'dark')
  t.equal((await rootTheme(page)).source, 'saved', 'back to the saved dark')
  t.equal(await savedTheme(page), 'dark')
  t.same(provoked(problems, /ERR_INTERNET_DISCONNECTED/), [])
})

t.test('quick presses end on the last choice, on the page and on the server', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await visit(browser, url, { open: openThemePage })
  await switchButton(page, 'System').click()
  await switchButton(page, 'Light').click()
  t.equal((await rootTheme(page)).className, 'dark', 'dark at once, second press')
  await page.waitForFunction(() => document.documentElement.getAttribute('data-theme-source') === 'saved')
  t.equal(await savedTheme(page), 'dark', 'the server ends with the last choice')
  t.equal((await rootTheme(page)).className, 'dark')
  t.same(problems, [])
})

/** Holds every theme-switch request; each call of the result gives the next one, in the order they were sent. */
function holdThemeSwitches (page: Page): () => Promise<Route> {
  const arrived: Route[] = []
  const waiting: Array<(route: Route) => void> = []
  void page.route('**/resources/theme-switch', (route) => {
    const taker = waiting.shift()
    if (taker) taker(route)
    else arrived.push(route)
  })
  return () => {
    const route = arrived.shift()
    return route ? Promise.resolve(route) : new Promise((resolve) => waiting.push(resolve))
  }
}

/** A theme page that records every toast text it shows, sonner's or the box standing in for it, from the first byte. */
async function openRecordingToasts (browser: Browser, options: BrowserContextOptions): Promise<WatchedPage> {
  const watched = await openThemePage(browser, options)
  await watched.page.addInitScript(() => {
    const seen: string[] = []
    Object.assign(window, { __toastsSeen: seen })
    new MutationObserver(() => {
      for (const toast of document.querySelectorAll('[data-sonner-toast], .flash-toast')) {
        const text = toast.textContent ?? ''
        if (!seen.includes(text)) seen.push(text)
      }
    }).observe(document, { childList: true, subtree: true, characterData: true })
  })
  return watched
}

const toastsSeen = (page: Page) => page.evaluate(() => (window as unknown as { __toastsSeen: string[] }).__toastsSeen)

for (const earlier of ['saved', 'refused'] as const) {
  t.test(`a press while the one before is being saved: the later choice stays on screen once the earlier is ${earlier}`, async (t) => {
    const browser = await launchWithScheme(t, 'light')
    const { url } = await listen(t)
    const { page, problems } = await visit(browser, url, { open: openRecordingToasts })
    const nextRequest = holdThemeSwitches(page)
    await switchButton(page, 'System').click()
    await switchButton(page, 'Light').click()
    const first = await nextRequest()
    t.equal(first.request().postData(), 'theme=light')
    if (earlier === 'saved') await first.continue()
    else await first.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"busy"}' })
    // Sent only once the first has been answered and dealt with: the queue keeps them in order.
    const second = await nextRequest()
    t.equal(second.request().postData(), 'theme=dark')
    const state = await rootTheme(page)
    t.equal(state.className, 'dark', 'the later choice is still shown')
    t.equal(state.source, 'pending', 'as the choice on its way')
    t.equal(await switchButton(page, 'Dark').count(), 1, 'and the button tells it')
    await second.continue()
    await page.waitForFunction(() => document.documentElement.getAttribute('data-theme-source') === 'saved')
    t.equal((await rootTheme(page)).className, 'dark')
    t.equal(await savedTheme(page), 'dark', 'the server ends with the later choice')
    t.same((await toastsSeen(page)).filter((text) => text.includes('could not be changed')), [], 'and no toast says a choice no longer wanted failed')
    t.same(provoked(problems, /status of 503/), [])
  })
}
