// What a visitor downloads, as served (the precompressed files): npm run build, the size-budget test and the bench.
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { clientOut } from './paths.mjs'

export const isTrackerChunk = (url) => /\/tracker-[^/]+\.js$/.test(url)

/** First paint waits for the shell and one page's chunks: the heaviest page's count. */
export async function sizesOf (manifest) {
  const measure = async (urls) => {
    const total = { raw: 0, gzip: 0, brotli: 0 }
    for (const url of urls) {
      const file = join(clientOut, url)
      total.raw += (await stat(file)).size
      total.gzip += (await stat(`${file}.gz`)).size
      total.brotli += (await stat(`${file}.br`)).size
    }
    return total
  }
  const shell = await measure([manifest.entry, ...manifest.preloads])
  let heaviestPage = { id: null, raw: 0, gzip: 0, brotli: 0 }
  for (const [id, urls] of Object.entries(manifest.pages ?? {})) {
    const page = await measure(urls)
    if (page.gzip > heaviestPage.gzip) heaviestPage = { id, ...page }
  }
  const initial = { raw: shell.raw + heaviestPage.raw, gzip: shell.gzip + heaviestPage.gzip, brotli: shell.brotli + heaviestPage.brotli }
  const trackerChunks = (await readdir(join(clientOut, 'assets'))).map((file) => `/assets/${file}`).filter(isTrackerChunk)
  return { initial, shell, heaviestPage, tracker: await measure(trackerChunks), trackerChunks }
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`

/**
 * What is over package.json's budgets (`config`), which test/build/size-budget.test.ts holds the build to: said by the
 * build, so a screen that tips a page over is named when it is built, not first by a failing test. In bytes as well:
 * a page a few bytes over reads "72.0 KiB".
 */
export function overBudget ({ shell, initial, heaviestPage }, { initialJavaScriptBudgetKiB, pageJavaScriptBudgetKiB }) {
  const over = (bytes, budgetKiB) => `${kib(bytes)} (${bytes} B) gzip, over ${budgetKiB} KiB (${budgetKiB * 1024} B)`
  return [
    ...(shell.gzip > initialJavaScriptBudgetKiB * 1024 ? [`the shell is ${over(shell.gzip, initialJavaScriptBudgetKiB)}: initialJavaScriptBudgetKiB`] : []),
    ...(initial.gzip > pageJavaScriptBudgetKiB * 1024 ? [`the page "${heaviestPage.id}" with the shell is ${over(initial.gzip, pageJavaScriptBudgetKiB)}: pageJavaScriptBudgetKiB`] : [])
  ].map((line) => `warning: ${line} in package.json's config, so npm test fails; load what the page needs later with import() after hydration, or raise the budget on purpose (docs/building-a-screen.md, "Its weight")`)
}

export const describeSizes = ({ initial, shell, heaviestPage, tracker, trackerChunks }) => [
  `initial JavaScript: ${kib(initial.raw)} raw, ${kib(initial.gzip)} gzip, ${kib(initial.brotli)} brotli (shell ${kib(shell.gzip)} + heaviest page "${heaviestPage.id}" ${kib(heaviestPage.gzip)} gzip)`,
  `tracker chunk:      ${kib(tracker.raw)} raw, ${kib(tracker.gzip)} gzip, ${kib(tracker.brotli)} brotli (${trackerChunks.join(', ') || 'none'}; loaded after hydration)`
]
