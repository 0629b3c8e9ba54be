import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { DIST_DIR } from '../../src/server/app.js'

// Sizes are deterministic for a given build, so the budget is checked here
// rather than by the benchmark's timing. The bench reports the same figure.
interface Metafile {
  outputs: Record<string, { entryPoint?: string, imports: Array<{ path: string, kind: string }> }>
}
const metafile = JSON.parse(readFileSync(join(DIST_DIR, 'client-meta.json'), 'utf8')) as Metafile
const { config } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { config: { initialJavaScriptBudgetKiB: number } }
const BUDGET_BYTES = config.initialJavaScriptBudgetKiB * 1024

/** The client entry and every chunk it imports statically, transitively: what hydration waits for. */
function initialOutputs (): string[] {
  const entry = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === 'src/client/entry.tsx')?.[0]
  if (!entry) throw new Error('no output for src/client/entry.tsx in the metafile')
  const found = new Set([entry])
  const visit = (file: string) => {
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || found.has(imported.path)) continue
      found.add(imported.path)
      visit(imported.path)
    }
  }
  visit(entry)
  return [...found]
}

const gzipBytes = (files: string[]) => files.reduce((sum, file) => sum + gzipSync(readFileSync(join(DIST_DIR, '..', file)), { level: 9 }).length, 0)

t.test(`the JavaScript that first paint and hydration wait for is at most ${config.initialJavaScriptBudgetKiB} KiB gzip`, async (t) => {
  const initial = initialOutputs()
  const bytes = gzipBytes(initial)
  t.comment(`initial JavaScript: ${(bytes / 1024).toFixed(1)} KiB gzip in ${initial.length} files`)
  // React 19's hydrateRoot alone is about 67 KiB gzip: far less means the wrong files were measured.
  t.ok(bytes > 60 * 1024, 'the measurement covers React itself')
  t.ok(bytes <= BUDGET_BYTES, `${(bytes / 1024).toFixed(1)} KiB ≤ ${config.initialJavaScriptBudgetKiB} KiB`)
})

