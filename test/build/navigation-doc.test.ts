import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import t from 'tap'
import { SPECULATE_ATTRIBUTE } from '../../src/shared/speculation-rules.js'
import { codeBlocks, normalized } from '../helpers/doc-code.js'

// docs/navigation.md's example is the second test page of test/fixtures/two-pages/, which
// test/browser/navigation.test.ts runs prerendered and shown.

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..')
const SHOWN = 'src/ui/pages/second.tsx'
const FIXTURE = 'test/fixtures/two-pages/second-page.tsx'

t.test('docs/navigation.md\'s example is the code the browser tests run', async (t) => {
  const doc = await readFile(join(ROOT, 'docs/navigation.md'), 'utf8')
  const code = codeBlocks(doc).get(SHOWN)
  t.ok(code, `the doc shows ${SHOWN}`)
  const fixture = await readFile(join(ROOT, FIXTURE), 'utf8')
  t.equal(normalized(code ?? '', SHOWN), normalized(fixture, FIXTURE), `${SHOWN} is ${FIXTURE}`)
})

t.test('docs/navigation.md names the opt-out marker the rules read', async (t) => {
  const doc = await readFile(join(ROOT, 'docs/navigation.md'), 'utf8')
  for (const value of ['none', 'prefetch']) t.ok(doc.includes(`${SPECULATE_ATTRIBUTE}="${value}"`), `${SPECULATE_ATTRIBUTE}="${value}"`)
})
