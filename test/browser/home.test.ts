import t from 'tap'
import { launchBrowser, openPage, visit } from '../helpers/browser.js'
import { listen } from '../helpers/server.js'

t.test('the home page loads and hydrates with a clean console, without the code of what it does not use', async (t) => {
  const browser = await launchBrowser(t)
  const { url } = await listen(t)
  const scripts: string[] = []
  const { page, problems } = await visit(browser, url, {
    async open (browser, options) {
      const watched = await openPage(browser, options)
      watched.page.on('request', (request) => { if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname) })
      return watched
    }
  })
  t.equal(await page.title(), 'Agent Stack')
  t.equal(await page.locator('h1').textContent(), 'Agent Stack')
  // Hydration waits for the store of a page that defers: by now it would have been fetched.
  t.notOk(scripts.some((path) => /\/deferred-store-[A-Z0-9]+\.js$/.test(path)), `no deferred-data store: the page defers nothing (${scripts.join(', ')})`)
  t.same(problems, [], 'no console error or warning, no uncaught error')
})
