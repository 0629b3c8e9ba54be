import type { Page } from 'playwright-core'
import t from 'tap'
import type { PageData } from '../../src/shared/page-data.js'
import { BACKGROUNDS, distinct, hydrated, launchWithScheme, openThemePage, themeRecord } from '../helpers/theme.js'
import { listen } from '../helpers/server.js'

/**
 * The client-hint check script in a real browser: it reloads once, and only
 * when the page was rendered in another time zone than the browser's; never
 * in a loop, never for bots. The theme never needs a reload (it is painted
 * before the first frame), so the time zone is what provokes one here.
 */

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

/** Counts the documents a page commits: a reload is a second one (a Critical-CH retry is not: it happens before the commit). */
function countCommits (page: Page): () => number {
  let commits = 0
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) commits++ })
  return () => commits
}

/** Lets a reload the script may have asked for happen before counting, without sleeping. */
async function settle (page: Page): Promise<void> {
  await hydrated(page)
  await page.waitForLoadState('networkidle')
  await hydrated(page)
}

const renderedTimeZone = (page: Page) => page.evaluate(() => (window as unknown as { __PAGE_DATA__: PageData }).__PAGE_DATA__.requestInfo.hints.timeZone)
const cookie = async (page: Page, name: string) => (await page.context().cookies()).find((entry) => entry.name === name)?.value

t.test('a first visit from another time zone reloads once, and the theme is right in both documents', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t)
  const { page, problems } = await openThemePage(browser, { timezoneId: 'Europe/Paris' })
  const commits = countCommits(page)
  await page.goto(`${url}/`)
  await page.waitForFunction(() => window.__theme?.navigation === 'reload' && document.documentElement.dataset.hydrated === 'true')
  await settle(page)
  t.equal(commits(), 2, 'exactly one reload')
  t.equal(await renderedTimeZone(page), 'Europe/Paris', 'the reloaded page was rendered in the browser’s zone')
  t.equal(await cookie(page, 'CH-time-zone'), encodeURIComponent('Europe/Paris'))
  const { frames, violations } = await themeRecord(page)
  t.same(distinct(frames.map((frame) => frame.background)), [BACKGROUNDS.dark], 'the reloaded document painted dark throughout')
  t.same(violations, [], 'hiding the page for the reload broke no CSP rule')

  await page.goto(`${url}/?again`)
  await settle(page)
  t.equal(commits(), 3, 'the next page needs no reload')
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'the reload counter is cleared')
  t.same(problems, [])
})

t.test('a browser in UTC is never reloaded', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await openThemePage(browser, { timezoneId: 'UTC' })
  const commits = countCommits(page)
  await page.goto(`${url}/`)
  await settle(page)
  t.equal(commits(), 1)
  t.equal(await cookie(page, 'CH-time-zone'), 'UTC', 'the cookie is still written')
  t.equal(await cookie(page, 'CH-prefers-color-scheme'), 'light')
  t.same(problems, [])
})

t.test('with cookies blocked there is no reload loop', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t)
  const { page, context, problems } = await openThemePage(browser, { timezoneId: 'Asia/Tokyo' })
  // The page's document.cookie reads nothing and keeps nothing, as where cookies are blocked.
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setDocumentCookieDisabled', { disabled: true })
  const commits = countCommits(page)
  await page.goto(`${url}/`)
  await settle(page)
  t.equal(commits(), 1, 'no reload at all: the cookie did not stick')
  t.equal(await renderedTimeZone(page), 'UTC')
  const { frames } = await themeRecord(page)
  t.same(distinct(frames.map((frame) => frame.background)), [BACKGROUNDS.dark], 'the theme is still right')
  t.same(problems, [])
})

t.test('where cookie writes are silently dropped (privacy tools) there is no reload loop either', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, context, problems } = await openThemePage(browser, { timezoneId: 'America/New_York' })
  await context.addInitScript({ content: 'Object.defineProperty(Document.prototype, "cookie", { configurable: true, get: () => "", set: () => {} })' })
  const commits = countCommits(page)
  await page.goto(`${url}/`)
  await settle(page)
  t.equal(commits(), 1)
  t.same(problems, [])
})

t.test('bots never get the reload', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t)
  const { page, problems } = await openThemePage(browser, { timezoneId: 'Europe/Paris', userAgent: GOOGLEBOT })
  const commits = countCommits(page)
  await page.goto(`${url}/`)
  await settle(page)
  t.equal(commits(), 1)
  t.equal(await renderedTimeZone(page), 'UTC')
  t.same(problems, [])
})
