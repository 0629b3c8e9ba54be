import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { initialOutputs } from '../../build.mjs'
import { DIST_DIR } from '../../src/server/app.js'

// Sizes are deterministic for a given build, so the budget is checked here
// rather than by the benchmark's timing. The bench reports the same figure.
const metafile = JSON.parse(readFileSync(join(DIST_DIR, 'client-meta.json'), 'utf8'))
const { config } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { config: { initialJavaScriptBudgetKiB: number } }
const BUDGET_BYTES = config.initialJavaScriptBudgetKiB * 1024

const gzipBytes = (files: string[]) => files.reduce((sum, file) => sum + gzipSync(readFileSync(join(DIST_DIR, '..', file)), { level: 9 }).length, 0)

t.test(`the JavaScript that first paint and hydration wait for is at most ${config.initialJavaScriptBudgetKiB} KiB gzip`, async (t) => {
  const initial = initialOutputs(metafile)
  const bytes = gzipBytes(initial)
  t.comment(`initial JavaScript: ${(bytes / 1024).toFixed(1)} KiB gzip in ${initial.length} files`)
  // React 19's hydrateRoot alone is about 67 KiB gzip: far less means the wrong files were measured.
  t.ok(bytes > 60 * 1024, 'the measurement covers React itself')
  t.ok(bytes <= BUDGET_BYTES, `${(bytes / 1024).toFixed(1)} KiB ≤ ${config.initialJavaScriptBudgetKiB} KiB`)
})

