import t from 'tap'
import { statSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { deferredOutputs, initialOutputs, screenOutputs } from '../../build/manifest.mjs'
import { screenModules } from '../../build/screens.mjs'
import { DIST_DIR } from '../../src/server/app.js'

// Sizes are deterministic for a given build, so the budget is checked here
// rather than by the benchmark's timing. The bench reports the same figure.
const metafile = JSON.parse(readFileSync(join(DIST_DIR, 'client-meta.json'), 'utf8'))
// The shell is what every page waits for; a page's own chunk comes on top (the sign-up example's, with the form kit,
// is the heaviest), so each has its budget (bench/targets.mjs reports the same two figures).
const { config } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { config: { initialJavaScriptBudgetKiB: number, pageJavaScriptBudgetKiB: number } }
const SHELL_BUDGET_BYTES = config.initialJavaScriptBudgetKiB * 1024
const PAGE_BUDGET_BYTES = config.pageJavaScriptBudgetKiB * 1024

/** Bytes as a gzip client receives them: the .gz files the build wrote beside each script. */
const gzipBytes = (files: string[]) => files.reduce((sum, file) => sum + statSync(join(DIST_DIR, '..', `${file}.gz`)).size, 0)
const kib = (bytes: number) => (bytes / 1024).toFixed(1)
/** Against a budget: in bytes as well, so that a page a few bytes over never reads as "72.0 KiB ≤ 72 KiB". */
const against = (bytes: number, budgetKiB: number) => `${kib(bytes)} KiB (${bytes} B) ≤ ${budgetKiB} KiB (${budgetKiB * 1024} B)`
/** The source modules bundled into some output files. */
const inputsOf = (files: string[]) => new Set(files.flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {})))
const AWAIT = 'src/ui/await.tsx'

t.test(`the JavaScript that first paint and hydration wait for: the shell at most ${config.initialJavaScriptBudgetKiB} KiB gzip, with any page's own at most ${config.pageJavaScriptBudgetKiB}`, async (t) => {
  const shell = initialOutputs(metafile)
  const shellBytes = gzipBytes(shell)
  // React 19's hydrateRoot alone is about 67 KiB gzip: far less means the wrong files were measured.
  t.ok(shellBytes > 60 * 1024, 'the measurement covers React itself')
  t.ok(shellBytes <= SHELL_BUDGET_BYTES, `the shell: ${against(shellBytes, config.initialJavaScriptBudgetKiB)}`)
  const pages = Object.entries(screenOutputs(metafile, await screenModules()))
  t.ok(pages.some(([id]) => id === 'home'), 'each screen has chunks of its own, the home page too')
  // Each page on its own: every one over the budget is named at once.
  for (const [id, files] of pages) {
    const bytes = shellBytes + gzipBytes(files)
    t.ok(bytes <= PAGE_BUDGET_BYTES, `${id}: ${against(bytes, config.pageJavaScriptBudgetKiB)} (shell ${kib(shellBytes)} KiB in ${shell.length} files, page ${kib(bytes - shellBytes)} in ${files.length})`)
  }
  // A document with deferred parts also loads the store that takes them: a screen that uses Await defers.
  const store = deferredOutputs(metafile)
  for (const [id, files] of pages.filter(([, files]) => inputsOf(files).has(AWAIT))) {
    const bytes = shellBytes + gzipBytes([...new Set([...files, ...store])])
    t.ok(bytes <= PAGE_BUDGET_BYTES, `${id}, which defers, with the deferred-data store: ${against(bytes, config.pageJavaScriptBudgetKiB)}`)
  }
})

t.test('what only some pages use is in their chunks, not in the shell: Await and the deferred-data store come with the pages that defer', async (t) => {
  const shell = inputsOf(initialOutputs(metafile))
  t.notOk(shell.has(AWAIT), 'the shell holds no Await: a screen that uses it loads it with its own chunk')
  t.ok(shell.has('src/ui/deferred-parts-context.ts'), 'only the context through which the shell hands a page its parts')
  for (const module of ['src/client/deferred-store.ts', 'src/shared/deferred.ts']) t.notOk(shell.has(module), `the shell holds no ${module}`)
  t.ok(inputsOf(deferredOutputs(metafile)).has('src/client/deferred-store.ts'), 'the store that takes a document\'s deferred parts has chunks of its own, which only such documents preload')
})
