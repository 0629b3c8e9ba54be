import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import t from 'tap'
import { SPECULATE_ATTRIBUTE } from '../../src/shared/speculation-rules.js'
import { fileBlocks, normalized } from '../helpers/doc-blocks.js'

// docs/navigation.md's screen is the second test screen of test/fixtures/two-pages/, which
// test/browser/navigation.test.ts runs prerendered and shown.

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..')
const DOC = 'docs/navigation.md'
const SHOWN = 'src/screens/second.tsx'
const FIXTURE = 'test/fixtures/two-pages/second.tsx'

t.test('docs/navigation.md\'s screen is the code the browser tests run', async (t) => {
  const code = fileBlocks(DOC, await readFile(join(ROOT, DOC), 'utf8')).get(SHOWN)
  t.ok(code, `the doc shows ${SHOWN}`)
  const fixture = await readFile(join(ROOT, FIXTURE), 'utf8')
  t.equal(normalized(code ?? '', SHOWN), normalized(fixture, FIXTURE), `${SHOWN} is ${FIXTURE}`)
})

t.test('docs/navigation.md names the opt-out marker the rules read', async (t) => {
  const doc = await readFile(join(ROOT, DOC), 'utf8')
  for (const value of ['none', 'prefetch']) t.ok(doc.includes(`${SPECULATE_ATTRIBUTE}="${value}"`), `${SPECULATE_ATTRIBUTE}="${value}"`)
})
