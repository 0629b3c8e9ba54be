import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { overBudget, sizesOf } from '../../build/sizes.mjs'
import { DIST_DIR } from '../../src/server/app.js'

// npm run build says what npm test's size-budget test will refuse, and what to do about it.
const BUDGETS = { initialJavaScriptBudgetKiB: 70, pageJavaScriptBudgetKiB: 72 }
const sizes = (shell: number, page: number) => ({ shell: { gzip: shell }, heaviestPage: { id: 'forecast', gzip: page }, initial: { gzip: shell + page } })

t.test('the build warns of a page over its budget, naming it, the budget and the way out', async (t) => {
  t.same(overBudget(sizes(70 * 1024, 2 * 1024), BUDGETS), [], 'at the budgets, nothing to say')
  const [page, ...rest] = overBudget(sizes(71_475, 3_175), BUDGETS)
  t.same(rest, [])
  t.match(page, /^warning: the page "forecast" with the shell is 72\.9 KiB \(74650 B\) gzip, over 72 KiB \(73728 B\): pageJavaScriptBudgetKiB/)
  t.match(page, /npm test fails; load what the page needs later with import\(\) after hydration, or raise the budget/)
  const [shell] = overBudget(sizes(70 * 1024 + 1, 0), BUDGETS)
  t.match(shell, /^warning: the shell is 70\.0 KiB \(71681 B\) gzip, over 70 KiB \(71680 B\): initialJavaScriptBudgetKiB/, 'a byte over, in bytes')
})

t.test('the figures the build prints are the served files\': the shell, the heaviest page on top of it, the tracker', async (t) => {
  const manifest = JSON.parse(readFileSync(join(DIST_DIR, 'manifest.json'), 'utf8')) as { entry: string, preloads: string[], pages: Record<string, string[]> }
  const served = (urls: string[]) => {
    const bytes = (url: string) => statSync(join(DIST_DIR, 'client', url)).size
    return {
      raw: urls.reduce((sum, url) => sum + bytes(url), 0),
      gzip: urls.reduce((sum, url) => sum + bytes(`${url}.gz`), 0),
      brotli: urls.reduce((sum, url) => sum + bytes(`${url}.br`), 0)
    }
  }
  const sizes = await sizesOf(manifest)
  const shell = served([manifest.entry, ...manifest.preloads])
  t.same(sizes.shell, shell)
  const pages = Object.entries(manifest.pages).map(([id, urls]) => ({ id, ...served(urls) }))
  const heaviest = pages.reduce((heaviest, page) => page.gzip > heaviest.gzip ? page : heaviest)
  t.ok(pages.some((page) => page.gzip < heaviest.gzip), 'the pages differ, so picking the heaviest is seen')
  t.same(sizes.heaviestPage, heaviest, `the heaviest page, "${heaviest.id}"`)
  t.same(sizes.initial, { raw: shell.raw + heaviest.raw, gzip: shell.gzip + heaviest.gzip, brotli: shell.brotli + heaviest.brotli }, 'first paint waits for both')
  const trackerChunks = readdirSync(join(DIST_DIR, 'client', 'assets')).filter((file) => /^tracker-[A-Z0-9]+\.js$/.test(file)).map((file) => `/assets/${file}`)
  t.equal(trackerChunks.length, 1)
  t.same(sizes.trackerChunks, trackerChunks)
  t.same(sizes.tracker, served(trackerChunks))
})
