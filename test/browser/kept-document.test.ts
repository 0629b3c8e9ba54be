import t from 'tap'
import { launchBrowser, visit, waitForHydration } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'

const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'

t.test('a document served from the render cache runs its inline scripts by their hashes: no CSP violation, and it hydrates', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listen(t)
  const outcomes: Array<string | undefined> = []
  for (let visitNumber = 1; visitNumber <= 3; visitNumber++) {
    const watched = await visit(browser, url, { userAgent: PERSON, savedTheme: 'dark' })
    await waitForHydration(watched)
    t.same(watched.problems, [], `visit ${visitNumber}: nothing in the console, no CSP violation`)
    t.equal(await watched.page.evaluate(() => document.querySelectorAll('script[type="speculationrules"]').length), 1)
    // What the render cache did, as the document's Server-Timing tells the page.
    outcomes.push(await watched.page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).serverTiming.find((entry) => entry.name === 'cache')?.description))
    await watched.context.close()
  }
  t.same(outcomes, ['miss', 'miss', 'hit'], 'the third visit was served from the cache')
})
