import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DIST_DIR } from '../../src/server/app.js'

// Reads what `npm run build` wrote (npm test builds first): the asset
// manifest and esbuild's metafile of the browser bundle.
interface Metafile {
  outputs: Record<string, { entryPoint?: string, inputs: Record<string, unknown>, imports: Array<{ path: string, kind: string }> }>
}
const manifest = JSON.parse(readFileSync(join(DIST_DIR, 'manifest.json'), 'utf8')) as { entry: string, preloads: string[] }
const metafile = JSON.parse(readFileSync(join(DIST_DIR, 'client-meta.json'), 'utf8')) as Metafile
const url = (output: string) => '/' + output.replace(/^dist\/client\//, '')
const isTrackerLibrary = (input: string) => input.includes('node_modules/@openreplay/tracker/')

t.test('the tracker is one lazy chunk, none of it in the JavaScript that first paint and hydration wait for', async (t) => {
  const trackerOutputs = Object.entries(metafile.outputs).filter(([, output]) => output.entryPoint === 'src/client/tracker.ts')
  t.equal(trackerOutputs.length, 1, 'src/client/tracker.ts is its own chunk')
  const [trackerFile = '', tracker] = trackerOutputs[0] ?? []
  t.match(url(trackerFile), /^\/assets\/tracker-[A-Z0-9]+\.js$/, 'named after it, so the build output shows it')
  t.ok(Object.keys(tracker?.inputs ?? {}).some(isTrackerLibrary), 'and it holds @openreplay/tracker')

  const initial = [manifest.entry, ...manifest.preloads]
  t.notOk(initial.includes(url(trackerFile)), 'not preloaded')
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!initial.includes(url(file))) continue
    t.notOk(Object.keys(output.inputs).some(isTrackerLibrary), `${url(file)} has none of the library`)
    t.notOk(output.imports.some((imported) => imported.path === trackerFile && imported.kind !== 'dynamic-import'), `${url(file)} imports the tracker only dynamically`)
  }
})
