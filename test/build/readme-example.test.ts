import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import t from 'tap'
import { codeBlocks, normalized, withoutExtension } from '../helpers/doc-code.js'

/**
 * The README's form example is a page, a route and a test at the paths a
 * product would give them. Each runs here as a fixture at a test path
 * (test/examples/newsletter.test.ts runs the test): the README's block and
 * its fixture must be the same code, each import naming the same module
 * once resolved from where its file lives.
 */

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..')

/** The README's path of each block, and the fixture that runs it. */
const FIXTURES: Record<string, string> = {
  'src/ui/newsletter-page.ts': 'test/fixtures/newsletter/page.ts',
  'src/ui/pages/newsletter.tsx': 'test/fixtures/newsletter/view.tsx',
  'src/server/forms/newsletter.ts': 'test/fixtures/newsletter/form.ts',
  'test/server/newsletter.test.ts': 'test/examples/newsletter.test.ts'
}

t.test('the README\'s form example is the code the tests run', async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const blocks = codeBlocks(readme)
  t.same([...blocks.keys()].filter((path) => path in FIXTURES).sort(), Object.keys(FIXTURES).sort(), 'the README shows each file')
  // A README path resolves to its fixture's; a fixture's path is already where the code lives.
  const fixtureOf = Object.fromEntries(Object.entries(FIXTURES).map(([shown, fixture]) => [withoutExtension(shown), withoutExtension(fixture)]))
  for (const [shown, fixture] of Object.entries(FIXTURES)) {
    const code = blocks.get(shown) ?? ''
    const ran = await readFile(join(ROOT, fixture), 'utf8')
    t.equal(
      normalized(code, shown, (resolved) => fixtureOf[resolved] ?? resolved),
      normalized(ran, fixture),
      `${shown} is ${fixture}`
    )
  }
})
