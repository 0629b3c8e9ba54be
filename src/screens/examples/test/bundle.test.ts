import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { screenOutputs } from '../../../../build/manifest.mjs'
import { screenModules } from '../../../../build/screens.mjs'
import { DIST_DIR } from '../../../server/app.js'

// The size budget itself (test/build/size-budget.test.ts) holds every page that uses Await, with the deferred-data
// store, to the page budget; this makes sure the streaming example is among them.
t.test('the streaming example loads Await with its own chunk, so the size budget counts it among the pages that defer', async (t) => {
  const metafile = JSON.parse(readFileSync(join(DIST_DIR, 'client-meta.json'), 'utf8'))
  const pages = screenOutputs(metafile, await screenModules())
  const inputs = new Set((pages.examplesStreaming ?? []).flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {})))
  t.ok(inputs.has('src/screens/examples/streaming.tsx'), 'its own chunk')
  t.ok(inputs.has('src/ui/await.tsx'), 'with Await')
})
