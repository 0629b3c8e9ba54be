import t, { type Test } from 'tap'
import { firstPageForm } from '../fixtures/two-pages/form.js'
import { FIRST_LINKS, FIRST_PATH, SECOND_PATH, TWO_PAGES } from '../fixtures/two-pages/pages.js'
import { listen } from '../helpers/server.js'
import { navigate, openTab, prerenderReaches, type PageSession } from '../helpers/tab-target.js'
import { buildTestClient } from '../helpers/test-client.js'

// Issue 26: navigation ahead of the click (Speculation Rules), and back/forward restored from the cache, in
// Chromium driven through its tab target (test/helpers/tab-target.ts): Playwright turns both off.

const ENTRY = 'test/fixtures/two-pages/client.tsx'

async function listenTwoPages (t: Test, env: Record<string, string> = {}) {
  const distDir = await buildTestClient(t, ENTRY)
  return listen(t, { distDir, pages: TWO_PAGES, forms: [firstPageForm], env })
}

const hydrated = (page: PageSession) => page.until(`document.documentElement.dataset.hydrated === 'true'`)

t.test('hover, then click, a link to another page: the page shown was prerendered', async (t) => {
  const { url } = await listenTwoPages(t)
  const tab = await openTab(t)
  await navigate(tab.page, `${url}${FIRST_PATH}`)
  await hydrated(tab.page)
  await tab.page.hover('#toSecond')
  const target = `${url}${SECOND_PATH}`
  t.same(await prerenderReaches(tab.page, target, 'Ready'), { status: 'Ready', url: target }, 'Chromium prerendered it on hover')
  await tab.page.click('#toSecond')
  t.same(await prerenderReaches(tab.page, target, 'Success'), { status: 'Success', url: target }, 'and showed it on the click')
  const shown = await tab.pageFor(SECOND_PATH)
  const navigation = await shown.evaluate<{ activationStart: number, heading: string, prerendering: boolean }>(`({
    activationStart: performance.getEntriesByType('navigation')[0].activationStart,
    heading: document.querySelector('h1').textContent,
    prerendering: document.prerendering
  })`)
  t.ok(navigation.activationStart > 0, `activationStart is after the navigation started (${navigation.activationStart} ms)`)
  t.equal(navigation.heading, 'Second page')
  t.equal(navigation.prerendering, false)
})
