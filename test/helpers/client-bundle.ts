import * as esbuild from 'esbuild'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { Test } from 'tap'
import { serverCodeStaysOnServer } from '../../build/boundary.mjs'
import { sonnerWithoutStyleInjection } from '../../build/client.mjs'
import { DIST_DIR } from '../../src/server/app.js'

/**
 * A build directory whose browser bundle starts from `entry`: a test's own
 * client entry, such as one that hydrates pages only the test defines. The
 * stylesheet and static files are the real build's. Pass it to listen() as
 * `distDir`; removed at teardown.
 */
export async function buildTestClient (t: Test, entry: string): Promise<string> {
  const distDir = await mkdtemp(join(tmpdir(), 'test-client-'))
  t.teardown(() => rm(distDir, { recursive: true, force: true }))
  const client = join(distDir, 'client')
  await cp(join(DIST_DIR, 'client'), client, { recursive: true })
  const result = await esbuild.build({
    entryPoints: { 'test-entry': entry },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outdir: join(client, 'test-assets'),
    entryNames: '[name]-[hash]',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [serverCodeStaysOnServer, sonnerWithoutStyleInjection],
    metafile: true,
    logLevel: 'warning'
  })
  const output = Object.keys(result.metafile.outputs).find((file) => file.endsWith('.js'))
  if (!output) throw new Error('the test bundle has no JavaScript')
  const manifest = JSON.parse(await readFile(join(DIST_DIR, 'manifest.json'), 'utf8')) as { styles: string[] }
  const entryUrl = '/' + relative(client, join(process.cwd(), output)).split('\\').join('/')
  await writeFile(join(distDir, 'manifest.json'), JSON.stringify({ styles: manifest.styles, entry: entryUrl, preloads: [] }))
  return distDir
}
