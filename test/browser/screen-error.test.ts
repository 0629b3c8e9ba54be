import t from 'tap'
import { OOPS_PATH } from '../fixtures/oops/oops.js'
import { OOPS } from '../fixtures/oops/screens.js'
import { launchBrowser, visit } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'
import { buildTestClient } from '../helpers/test-client.js'

/**
 * A screen whose component throws in the browser, here while hydrating: the reviewer's screen, whose loader's Date
 * the browser gets as a string. React would unmount the whole document, stylesheet included; the screen's error
 * boundary keeps the shell and shows the server-error screen in the screen's place.
 */

const ENTRY = 'test/fixtures/oops/client.tsx'

t.test('a screen that throws in the browser leaves the shell standing, showing the server-error screen', async (t) => {
  const distDir = await buildTestClient(t, ENTRY)
  // Production does not walk loader data (docs/decisions/loader-data-survives-json.md): the Date reaches the browser.
  const { url } = await listen(t, { distDir, screens: OOPS, env: { NODE_ENV: 'production' } })
  const browser = await launchBrowser(t)
  // A person's browser: a bot would get the page whole, and no hint reload.
  const userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Safari/537.36`
  const { page, problems } = await visit(browser, url, { path: OOPS_PATH, userAgent, savedTheme: 'dark' })

  t.equal(await page.locator('main h1').textContent(), 'Something went wrong', 'the server-error screen in the screen\'s place')
  t.match(await page.locator('main').textContent(), 'We could not show this page.')
  t.equal(await page.locator('.site-header .site-name').textContent(), 'Agent Stack', 'the header stays')
  t.equal(await page.evaluate(() => document.documentElement.className), 'dark', 'and so does the theme')
  const styled = await page.evaluate(() => [...document.styleSheets].some((sheet) => sheet.href?.includes('/assets/') && sheet.cssRules.length > 0))
  t.ok(styled, 'and the stylesheet, applied')
  t.ok(await page.locator('.site-header').isVisible(), 'the page is not blank')
  t.ok(problems.some((problem) => problem.includes('toISOString is not a function')), 'the error still reaches the console', { problems })
})
