import { fileURLToPath } from 'node:url'
import t from 'tap'
import { defineLoader } from '../../src/server/screens/index.js'
import { LOST_PART_GRACE_MS } from '../../src/client/deferred-store.js'
import { launchBrowser, openPage, waitForHydration } from '../helpers/browser.js'
import { buildTestClient } from '../helpers/test-client.js'
import { listen } from '../helpers/server.js'
import { screen } from '../helpers/screens.js'
import { gate } from '../helpers/streamed-response.js'
import weather, { type Forecast, type WeatherData } from '../fixtures/streaming/weather.js'

/**
 * The weather page of docs/streaming.md in Chromium: each request's forecast arrives when the test lets it, so what
 * a person sees is checked in order, never against a clock.
 */

const FALLBACK = 'Loading the forecast…'
const SUMMARY = 'Sunny, 21 °C'

/** The loader of each request in turn: its signal, and the forecast the test lets through. */
interface Visit {
  signal: AbortSignal
  forecast: ReturnType<typeof gate<Forecast>>
}

/** `forecastSoon`: each request's forecast comes after its shell is rendered, unasked (a visit that shows nothing before it). */
async function weatherApp (t: Parameters<typeof listen>[0], forecastSoon = false) {
  const visits: Visit[] = []
  const waiting: Array<(visit: Visit) => void> = []
  const loader = defineLoader<WeatherData>(({ signal }) => {
    const visit = { signal, forecast: gate<Forecast>() }
    if (forecastSoon) setImmediate(() => visit.forecast.open({ summary: SUMMARY }))
    visits.push(visit)
    for (const wake of waiting.splice(0)) wake(visit)
    return { city: 'Lisbon', forecast: visit.forecast.promise }
  })
  /** The visit of the `n`th request (from 1), once its loader has run. */
  const visitNumber = (n: number) => new Promise<Visit>((resolve) => {
    const check = () => { if (visits[n - 1]) resolve(visits[n - 1]!); else waiting.push(check) }
    check()
  })
  const distDir = await buildTestClient(t, fileURLToPath(new URL('../fixtures/streaming/client.tsx', import.meta.url)))
  const { url } = await listen(t, { screens: { weather: screen(weather, { loader }) }, distDir })
  return { url, visits, visitNumber }
}

t.test('the weather page in Chromium', async (t) => {
  const browser = await launchBrowser(t)
  const userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`

  await t.test('a returning visitor with JavaScript sees the fallback, then the forecast, hydrated without a warning', async (t) => {
    const { url, visits } = await weatherApp(t)
    const watched = await openPage(browser, { userAgent, timezoneId: 'Europe/Lisbon' })
    // What the hint script set on an earlier visit: this browser runs scripts.
    await watched.context.addCookies([{ name: 'CH-time-zone', value: 'Europe%2FLisbon', url }, { name: 'CH-prefers-color-scheme', value: 'light', url }])
    const { page, problems } = watched
    const navigation = page.goto(`${url}/weather`)
    await page.getByText(FALLBACK).waitFor()
    await waitForHydration(watched)
    t.equal(await page.locator('.forecast').count(), 0, 'no forecast yet, and the page is hydrated')
    t.equal(visits.length, 1, 'one request')
    visits[0]?.forecast.open({ summary: SUMMARY })
    await page.locator('.forecast', { hasText: SUMMARY }).waitFor()
    await navigation
    t.equal(await page.getByText(FALLBACK).count(), 0, 'the fallback is gone')
    t.equal(await page.locator('h1').textContent(), 'Weather in Lisbon')
    t.same(problems, [], 'no hydration warning, no console error')
  })

  await t.test('without JavaScript, a first visit shows the forecast in place', async (t) => {
    const { url } = await weatherApp(t, true)
    const { page, problems } = await openPage(browser, { userAgent, javaScriptEnabled: false })
    await page.goto(`${url}/weather`)
    t.equal(await page.locator('main .forecast', { hasText: SUMMARY }).count(), 1, 'in the page, where the fallback would be')
    t.equal(await page.getByText(FALLBACK).count(), 0, 'and no fallback left')
    t.same(problems, [])
  })

  await t.test('a first visit is one request: nothing makes Chromium retry it for a hint, so the forecast is waited for once', async (t) => {
    const { url, visits, visitNumber } = await weatherApp(t)
    const watched = await openPage(browser, { userAgent, timezoneId: 'Europe/Lisbon' })
    const { page, problems } = watched
    const navigation = page.goto(`${url}/weather`)
    const first = await visitNumber(1)
    await page.locator('h1', { hasText: 'Weather in Lisbon' }).waitFor()
    t.equal(await page.getByText(FALLBACK).count(), 0, 'the page shows down to the forecast while it waits, without the fallback a first visit would keep')
    first.forecast.open({ summary: SUMMARY })
    await navigation
    await page.locator('.forecast', { hasText: SUMMARY }).waitFor()
    await waitForHydration(watched)
    t.equal(visits.length, 1, 'one request, one forecast waited for')
    t.notOk(first.signal.aborted, 'and its loader was never told to stop')
    t.same(problems, [])
  })

  await t.test('a connection lost mid-stream: the visitor is told the page did not finish, not left with its fallback for good', async (t) => {
    const loader = defineLoader<WeatherData>(({ request }) => {
      // The head and the fallback leave at once; then the connection drops, as on a train entering a tunnel.
      setTimeout(() => request.raw.socket.destroy(), 300)
      return { city: 'Lisbon', forecast: new Promise<Forecast>(() => {}) }
    })
    const distDir = await buildTestClient(t, fileURLToPath(new URL('../fixtures/streaming/client.tsx', import.meta.url)))
    const { url } = await listen(t, { screens: { weather: screen(weather, { loader }) }, distDir, env: { STREAM_TIME_LIMIT_MS: '500' } })
    const watched = await openPage(browser, { userAgent, timezoneId: 'Europe/Lisbon' })
    await watched.context.addCookies([{ name: 'CH-time-zone', value: 'Europe%2FLisbon', url }, { name: 'CH-prefers-color-scheme', value: 'light', url }])
    const { page, problems } = watched
    page.goto(`${url}/weather`).catch(() => {})
    await page.getByText(FALLBACK).waitFor()
    await waitForHydration(watched)
    await page.getByText('Part of this page did not arrive').first().waitFor({ timeout: 500 + LOST_PART_GRACE_MS + 5000 })
    t.equal(await page.evaluate(() => document.readyState), 'loading', 'the document never finished: Chromium sent no event to go by')
    t.same(problems.filter((problem) => !problem.includes('ERR_INCOMPLETE_CHUNKED_ENCODING')), [], 'nothing in the console but the cut-off document')
  })

  await t.test('a visitor who reloads while the forecast waits: the abandoned request\'s loader is told to stop, and the new one shows the forecast after one wait', async (t) => {
    const { url, visits, visitNumber } = await weatherApp(t)
    const watched = await openPage(browser, { userAgent, timezoneId: 'Europe/Lisbon' })
    const { page, problems } = watched
    page.goto(`${url}/weather`).catch(() => {})
    const first = await visitNumber(1)
    await page.locator('h1', { hasText: 'Weather in Lisbon' }).waitFor()
    const reload = page.reload()
    const second = await visitNumber(2)
    await new Promise((resolve) => first.signal.aborted ? resolve(null) : first.signal.addEventListener('abort', resolve))
    t.equal(first.signal.reason?.name, 'ClientGoneError', 'the abandoned request\'s loader was told why it stops')
    second.forecast.open({ summary: SUMMARY })
    await reload
    await page.locator('.forecast', { hasText: SUMMARY }).waitFor()
    t.equal(visits.length, 2, 'two requests, the second one\'s forecast waited for once')
    t.same(problems, [])
  })
})
