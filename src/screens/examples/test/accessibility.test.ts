import t, { type Test } from 'tap'
import type { Theme } from '../../../shared/theme.js'
import { assertAccessible } from '../../../../test/helpers/axe.js'
import { failedToLoad, launchBrowser, visit, waitForHydration, type WatchedPage } from '../../../../test/helpers/browser.js'
import { listen } from '../../../../test/helpers/server.js'

/**
 * axe-core in Chromium on every example, hydrated, in both themes (as test/browser/accessibility.test.ts does for the
 * shell's own documents): the list, the form as it opens and as it shows its messages, the streamed page with its
 * slow part come and failed, and the local time. Zero violations, every contrast check decided.
 */

interface AuditedExample {
  name: string
  path: string
  /** Proof that what is audited is what was meant. */
  shows: string
  then?: (t: Test, watched: WatchedPage) => Promise<void>
  /** What Chromium logs for a response that is not a 2xx. */
  consoleError?: string
}

/** Sends the sign-up form empty, as a person might: every required field gets its message. */
async function refuseEmptyForm (_t: Test, watched: WatchedPage): Promise<void> {
  await watched.page.click('.form-submit')
  await watched.page.locator('.form-summary').waitFor()
}

/** What Chromium logs for a response that is not a 2xx (here the form's answer in the background). */
const EXAMPLES: AuditedExample[] = [
  { name: 'the list of examples', path: '/examples', shows: 'A sign-up form' },
  { name: 'the sign-up form', path: '/examples/form', shows: 'I agree to the terms' },
  { name: 'the sign-up form with its messages', path: '/examples/form', shows: 'Tick the box to agree to the terms', then: refuseEmptyForm, consoleError: failedToLoad(422, 'Unprocessable Entity') },
  { name: 'the streamed page, its slow part come', path: '/examples/streaming?delay=0', shows: 'Loaded after 0 ms' },
  { name: 'the streamed page, its slow part failed', path: '/examples/streaming?delay=0&fail=1', shows: 'could not be loaded' },
  { name: 'the local time', path: '/examples/time', shows: 'in UTC' }
]

t.test('no accessibility violations on the examples, in either theme', async (t) => {
  const browser = await launchBrowser(t)
  // A failed part is logged at error level, as docs/streaming.md says; no wait before a form counts as a person's.
  const { url } = await listen(t, { allowErrorLogs: true, honeypot: { minDelayMs: 0 } })
  for (const example of EXAMPLES) {
    for (const theme of ['light', 'dark'] as const satisfies readonly Theme[]) {
      await t.test(`${example.name}, ${theme} theme`, async (t) => {
        const watched = await visit(browser, url, { path: example.path, savedTheme: theme, timezoneId: 'UTC' })
        const { page, problems, context } = watched
        t.teardown(() => context.close())
        await example.then?.(t, watched)
        await waitForHydration(watched)
        await page.getByText(example.shows).first().waitFor()
        t.equal(await page.evaluate(() => document.documentElement.className), theme, `painted ${theme}`)
        await assertAccessible(t, page)
        t.same(problems.filter((problem) => problem !== example.consoleError), [], 'no console error or warning')
      })
    }
  }
})
