import t from 'tap'
import { launchBrowser, visit } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'

t.test('the home page loads and hydrates with a clean console', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listen(t)
  const { page, problems } = await visit(browser, url)
  t.equal(await page.title(), 'Agent Stack')
  t.equal(await page.locator('h1').textContent(), 'Agent Stack')
  t.same(problems, [], 'no console error or warning, no uncaught error')
})
