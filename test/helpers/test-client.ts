import * as esbuild from 'esbuild'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import type { Test } from 'tap'
import { clientOptions } from '../../build/client.mjs'
import { DIST_DIR } from '../../src/server/app.js'

/**
 * A build whose browser entry is `entry` (a test's own, adding pages to the
 * table the browser hydrates from), beside the app's static files and
 * stylesheet: pass the returned folder to build() as `distDir`. Built with the
 * app's own options, so the server-code boundary and the sonner patch apply.
 */
export async function buildTestClient (t: Test, entry: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-stack-test-client-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(join(DIST_DIR, 'client'), join(dir, 'client'), { recursive: true })
  const result = await esbuild.build({
    ...clientOptions,
    entryPoints: { 'test-entry': entry },
    outdir: join(dir, 'client', 'assets'),
    // One file: the tracker's chunk stays inside it, and nothing else is needed to hydrate.
    splitting: false,
    sourcemap: false
  })
  const output = Object.keys(result.metafile.outputs).find((file) => basename(file).startsWith('test-entry-') && file.endsWith('.js'))
  if (!output) throw new Error(`esbuild wrote no bundle for ${entry}`)
  const manifest = JSON.parse(await readFile(join(DIST_DIR, 'manifest.json'), 'utf8'))
  // One file holds every page: no page has chunks of its own to preload.
  await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, entry: `/assets/${basename(output)}`, preloads: [], pages: {}, deferred: [] }))
  return dir
}
