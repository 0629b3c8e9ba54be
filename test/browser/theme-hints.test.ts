import type { Page } from 'playwright-core'
import t from 'tap'
import { fileURLToPath } from 'node:url'
import type { PageData } from '../../src/shared/page-data.js'
import { buildTestClient } from '../helpers/test-client.js'
import { BACKGROUNDS, distinct, hydrated, launchWithScheme, openThemePage, themeRecord } from '../helpers/theme.js'
import { listen } from '../helpers/server.js'
import { MEETING, MEETING_SCREENS } from '../helpers/time-page.js'

/**
 * The client-hint check script in a real browser: it reloads once, and only
 * when the page was rendered in another time zone than the browser's and
 * shows something rendered in it (LocalTime); never in a loop, never for
 * bots (those cases visit the page showing a time, which would reload). The theme never needs a reload (it is painted before the first
 * frame), so the time zone is what provokes one here.
 */

// The app with a screen showing a time (/meeting), in a browser bundle that knows it too.
const withMeeting = {
  screens: MEETING_SCREENS,
  distDir: await buildTestClient(t, fileURLToPath(new URL('../helpers/time-page-entry.tsx', import.meta.url)))
}

/** The meeting as the page shows it, and as the browser itself formats it in `timeZone`. */
const shownTime = (page: Page, timeZone: string) => page.evaluate(({ at, timeZone }) => {
  const time = document.querySelector('time')
  return {
    shown: time?.textContent,
    zone: time?.getAttribute('data-time-zone'),
    expected: new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(at))
  }
}, { at: MEETING, timeZone })

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

/** Counts the documents a page commits: a reload is a second one. */
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

t.test('a first visit from another time zone to a page showing no time: no reload, and the cookie is set for the next', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t, withMeeting)
  const { page, problems } = await openThemePage(browser, { timezoneId: 'Europe/Paris' })
  const commits = countCommits(page)
  await page.goto(`${url}/`)
  await settle(page)
  t.equal(commits(), 1, 'no reload')
  t.equal(await renderedTimeZone(page), 'UTC', 'rendered before the server knew the zone')
  t.equal(await cookie(page, 'CH-time-zone'), encodeURIComponent('Europe/Paris'), 'the hint cookie is set on this first visit')
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'nothing counted')

  await page.goto(`${url}/meeting`)
  await settle(page)
  t.equal(commits(), 2, 'the next page, showing a time, needs no reload either')
  const { shown, zone, expected } = await shownTime(page, 'Europe/Paris')
  t.equal(zone, 'Europe/Paris')
  t.equal(shown, expected, `it shows the time in Paris (${shown})`)
  t.same(problems, [])
})

t.test('a first visit from another time zone to a page showing a time reloads once, then shows Paris time; the theme is right in both documents', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t, withMeeting)
  const { page, problems } = await openThemePage(browser, { timezoneId: 'Europe/Paris' })
  const commits = countCommits(page)
  await page.goto(`${url}/meeting`)
  await page.waitForFunction(() => window.__theme?.navigation === 'reload' && document.documentElement.dataset.hydrated === 'true')
  await settle(page)
  t.equal(commits(), 2, 'exactly one reload')
  t.equal(await renderedTimeZone(page), 'Europe/Paris', 'the reloaded page was rendered in the browser’s zone')
  t.equal(await cookie(page, 'CH-time-zone'), encodeURIComponent('Europe/Paris'))
  const { shown, zone, expected } = await shownTime(page, 'Europe/Paris')
  t.equal(zone, 'Europe/Paris')
  t.equal(shown, expected, `the time in Paris (${shown})`)
  t.not(shown, (await shownTime(page, 'UTC')).expected, 'not the time in UTC')
  const { frames, violations } = await themeRecord(page)
  t.same(distinct(frames.map((frame) => frame.background)), [BACKGROUNDS.dark], 'the reloaded document painted dark throughout')
  t.same(violations, [], 'hiding the page for the reload broke no CSP rule')

  await page.goto(`${url}/meeting?again`)
  await settle(page)
  t.equal(commits(), 3, 'the next page needs no reload')
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'the reload counter is cleared')
  t.same(problems, [], 'no hydration warning, no CSP violation')
})

t.test('a browser in UTC is never reloaded', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t, withMeeting)
  const { page, problems } = await openThemePage(browser, { timezoneId: 'UTC' })
  const commits = countCommits(page)
  await page.goto(`${url}/meeting`)
  await settle(page)
  t.equal(commits(), 1)
  t.equal(await cookie(page, 'CH-time-zone'), 'UTC', 'the cookie is still written')
  t.equal(await cookie(page, 'CH-prefers-color-scheme'), 'light')
  t.same(problems, [])
})

t.test('with cookies blocked there is no reload loop', async (t) => {
  const browser = await launchWithScheme(t, 'dark')
  const { url } = await listen(t, withMeeting)
  const { page, context, problems } = await openThemePage(browser, { timezoneId: 'Asia/Tokyo' })
  // The page's document.cookie reads nothing and keeps nothing, as where cookies are blocked.
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setDocumentCookieDisabled', { disabled: true })
  const commits = countCommits(page)
  await page.goto(`${url}/meeting`)
  await settle(page)
  t.equal(commits(), 1, 'no reload at all: the cookie did not stick')
  t.equal(await renderedTimeZone(page), 'UTC')
  const { frames } = await themeRecord(page)
  t.same(distinct(frames.map((frame) => frame.background)), [BACKGROUNDS.dark], 'the theme is still right')
  t.same(problems, [])
})

t.test('where cookie writes are silently dropped (privacy tools) there is no reload loop either', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t, withMeeting)
  const { page, context, problems } = await openThemePage(browser, { timezoneId: 'America/New_York' })
  await context.addInitScript({ content: 'Object.defineProperty(Document.prototype, "cookie", { configurable: true, get: () => "", set: () => {} })' })
  const commits = countCommits(page)
  await page.goto(`${url}/meeting`)
  await settle(page)
  t.equal(commits(), 1)
  t.same(problems, [])
})

t.test('bots never get the reload', async (t) => {
  const browser = await launchWithScheme(t, 'light')
  const { url } = await listen(t, withMeeting)
  const { page, problems } = await openThemePage(browser, { timezoneId: 'Europe/Paris', userAgent: GOOGLEBOT })
  const commits = countCommits(page)
  await page.goto(`${url}/meeting`)
  await settle(page)
  t.equal(commits(), 1)
  t.equal(await renderedTimeZone(page), 'UTC')
  t.same(problems, [])
})
