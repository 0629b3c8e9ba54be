import type { APIResponse, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { visit, type VisitOptions } from '../helpers/browser.js'
import { BACKGROUNDS, distinct, hydrated, launchWithScheme, openThemePage, rootTheme, themeColorMetas, themeRecord, type Frame } from '../helpers/theme.js'
import { listen } from '../helpers/server.js'

declare global {
  interface Window {
    /** Set by a test on a document: still there later means the page was not reloaded. */
    __sameDocument?: boolean
  }
}

const switchButton = (page: Page, mode: 'System' | 'Light' | 'Dark') => page.getByRole('button', { name: `Theme: ${mode}` })
const markDocument = (page: Page) => page.evaluate(() => { window.__sameDocument = true })
const isSameDocument = (page: Page) => page.evaluate(() => window.__sameDocument === true)
const cookie = async (page: Page, name: string) => (await page.context().cookies()).find((entry) => entry.name === name)?.value

t.test('a system page follows a change of the OS scheme without a reload', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  // Emulated here: the OS scheme has to change while the page is open.
  const { page, problems } = await visit(browser, url, { open: openThemePage, colorScheme: 'light' })
  await markDocument(page)
  t.equal((await rootTheme(page)).className, 'light')

  await page.emulateMedia({ colorScheme: 'dark' })
  await page.waitForFunction(() => document.documentElement.className === 'dark')
  const state = await rootTheme(page)
  t.equal(state.background, BACKGROUNDS.dark)
  t.equal(state.colorScheme, 'dark')
  t.same(await themeColorMetas(page), ['(prefers-color-scheme: light) #0b1120', '(prefers-color-scheme: dark) #0b1120'], 'theme-color follows, in both metas')
  t.equal(await cookie(page, 'CH-prefers-color-scheme'), 'dark', 'the hint cookie follows, for the next request')
  t.ok(await isSameDocument(page), 'no reload')

  await page.emulateMedia({ colorScheme: 'light' })
  await page.waitForFunction(() => document.documentElement.className === 'light')
  t.ok(await isSameDocument(page), 'and back, still without a reload')
  t.same((await themeRecord(page)).transitions, [], 'no transition ran')
  t.same(problems, [])
})

t.test('a saved preference ignores a change of the OS scheme', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await visit(browser, url, { open: openThemePage, colorScheme: 'light', savedTheme: 'light' })
  await page.emulateMedia({ colorScheme: 'dark' })
  // The hint cookie is written by the same listener that would re-render: once it says dark, the page has reacted.
  await page.waitForFunction(() => document.cookie.includes('CH-prefers-color-scheme=dark'))
  t.equal((await rootTheme(page)).className, 'light')
  t.same(problems, [])
})

t.test('other tabs follow a switch at once', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t)
  const { page: first, context, problems } = await openThemePage(browser)
  const second = await context.newPage()
  second.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(`second tab: ${message.text()}`) })
  await first.goto(`${url}/`)
  await second.goto(`${url}/`)
  await Promise.all([hydrated(first), hydrated(second)])
  await markDocument(second)
  t.equal((await rootTheme(second)).className, 'dark', 'system on a dark OS')

  await switchButton(first, 'System').press('Enter')
  await second.waitForFunction(() => document.documentElement.className === 'light')
  t.equal((await rootTheme(second)).background, BACKGROUNDS.light)
  t.equal(await switchButton(second, 'Light').count(), 1, 'the second tab’s switch tells the new mode')

  await switchButton(first, 'Light').press('Enter')
  await second.waitForFunction(() => document.documentElement.className === 'dark')
  t.equal(await switchButton(second, 'Dark').count(), 1)
  t.ok(await isSameDocument(second), 'without reloading the second tab')
  t.same(problems, [])
})

/** A light page left for another one of the site, in a browser that keeps pages in the back/forward cache. */
async function leaveForAnotherPage (t: Test, options: VisitOptions = {}) {
  const browser = await launchWithScheme(t, 'light', { ignoreDefaultArgs: ['--disable-back-forward-cache'] })
  const { url } = await listen(t)
  const watched = await visit(browser, url, { ...options, open: openThemePage })
  await markDocument(watched.page)
  t.equal((await rootTheme(watched.page)).className, 'light')
  await watched.page.goto(`${url}/?page=2`)
  await hydrated(watched.page)
  return watched
}

/** Back to the page left, restored from the back/forward cache: its frames from the first one after the restore. */
async function backFromTheCache (t: Test, page: Page): Promise<Frame[]> {
  // A restored page fires no `load`: wait for the commit, then for the recorder's frames.
  await page.goBack({ waitUntil: 'commit' })
  await page.waitForFunction(() => window.__theme?.restored.length === 10)
  t.ok(await isSameDocument(page), 'the very document left behind, restored')
  const { persisted, restored } = await themeRecord(page)
  t.equal(persisted, true, 'from the back/forward cache')
  return restored
}

t.test('back to a page kept in the back/forward cache shows the current theme', async (t) => {
  const { page, problems } = await leaveForAnotherPage(t)
  await switchButton(page, 'System').press('Enter')
  await switchButton(page, 'Light').press('Enter')
  await page.waitForFunction(() => document.cookie.includes('en_theme=dark'))

  const restored = await backFromTheCache(t, page)
  t.same(distinct(restored.map((frame) => frame.className)), ['dark'], 'dark from the first frame after the restore')
  t.same(distinct(restored.map((frame) => frame.background)), [BACKGROUNDS.dark])
  t.equal(await switchButton(page, 'Dark').count(), 1)
  t.same(problems, [])
})

t.test('back to a page kept in the back/forward cache, on a system page, shows the OS scheme changed meanwhile', async (t) => {
  // Emulated here: the OS scheme has to change while the page is away.
  const { page, problems } = await leaveForAnotherPage(t, { colorScheme: 'light' })
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.waitForFunction(() => document.documentElement.className === 'dark')

  const restored = await backFromTheCache(t, page)
  t.same(distinct(restored.map((frame) => frame.className)), ['dark'], 'dark from the first frame after the restore')
  t.same(distinct(restored.map((frame) => frame.source)), ['hint'])
  t.same(problems, [])
})

t.test('back to a page from the HTTP cache shows the current theme', async (t) => {
  // Playwright's default: no back/forward cache. Chromium asks the server again for a document that varies by
  // Cookie, as other browsers' history navigation may not: the first visit's bytes are served again here, page data
  // and all, rendered with the old theme.
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await openThemePage(browser)
  let cached: APIResponse | undefined
  await page.route(`${url}/`, async (route) => {
    cached ??= await route.fetch()
    await route.fulfill({ response: cached })
  })
  await page.goto(`${url}/`)
  await hydrated(page)
  await page.goto(`${url}/?page=2`)
  await hydrated(page)
  await switchButton(page, 'System').press('Enter')
  await switchButton(page, 'Light').press('Enter')
  await page.waitForFunction(() => document.cookie.includes('en_theme=dark'))

  await page.goBack()
  await hydrated(page)
  t.equal(await page.evaluate(() => window.__PAGE_DATA__.requestInfo.userPrefs.theme), 'system', 'the page data of the first visit')
  const { frames, navigation } = await themeRecord(page)
  t.equal(navigation, 'back_forward')
  t.same(distinct(frames.map((frame) => frame.className)), ['dark'], 'dark from the first frame')
  t.same(distinct(frames.map((frame) => frame.background)), [BACKGROUNDS.dark])
  t.equal(frames.at(-1)?.source, 'saved')
  t.equal(await switchButton(page, 'Dark').count(), 1, 'the switch tells the saved mode after hydration')
  // Chromium skips the view transition into a document a route fulfilled; the document's first script keeps it quiet.
  t.same(problems, [])
})
