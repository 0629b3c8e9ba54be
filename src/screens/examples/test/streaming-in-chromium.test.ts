import t from 'tap'
import { launchBrowser, openPage, waitForHydration } from '../../../../test/helpers/browser.js'
import { listen } from '../../../../test/helpers/server.js'
import { withGatedWaits } from './gated-waits.js'

/**
 * The streaming example in Chromium: "Loading…" in a hydrated page, then "Loaded after N ms" in its place when the
 * slow part comes. The loader's wait is a gate the test opens, so the order is checked, never a clock.
 */

const STREAMING_PATH = '/examples/streaming'

t.test('the streaming example shows its fallback, then the slow part, hydrated without a warning', async (t) => {
  const { waits, screens } = await withGatedWaits(t)
  const { url } = await listen(t, { screens })
  const browser = await launchBrowser(t)
  const userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`
  const watched = await openPage(browser, { userAgent, timezoneId: 'Europe/Lisbon' })
  t.teardown(() => watched.context.close())
  // What the hint script set on an earlier visit: this browser runs scripts, so it gets the page streamed.
  await watched.context.addCookies([{ name: 'CH-time-zone', value: 'Europe%2FLisbon', url }, { name: 'CH-prefers-color-scheme', value: 'light', url }])
  const { page, problems } = watched

  const navigation = page.goto(`${url}${STREAMING_PATH}?delay=700`)
  await page.getByText('Loading…').waitFor()
  await waitForHydration(watched)
  t.equal(await page.getByText('Loaded after').count(), 0, 'hydrated, the slow part not there yet')
  t.equal(await page.locator('h1').textContent(), 'Streaming', 'the rest of the page is')
  t.equal(waits.length, 1, 'one request')
  waits[0]?.done.open()
  await page.getByText('Loaded after 700 ms').waitFor()
  await navigation
  t.equal(await page.getByText('Loading…').count(), 0, 'the fallback is gone')
  t.same(problems, [], 'no hydration warning, no console error')
})
