import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import t from 'tap'
import { asShownIn, assertBlocksAreFixtures, fileBlocks, normalized } from '../helpers/doc-blocks.js'

/**
 * docs/building-a-screen.md shows a screen, its server module, its registry line and its test at the paths a product
 * would give them. Each runs here as a fixture at a test path (test/examples/newsletter.test.ts runs the test): the
 * guide's block and its fixture must be the same code, each import naming the same module once resolved from where
 * its file lives.
 */

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..')
const GUIDE = 'docs/building-a-screen.md'

/** The guide's path of each block, and the fixture that runs it. */
const FIXTURES: Record<string, string> = {
  'src/screens/newsletter.tsx': 'test/fixtures/newsletter/newsletter.tsx',
  'src/screens/newsletter.server.ts': 'test/fixtures/newsletter/newsletter.server.ts',
  'test/server/newsletter.test.ts': 'test/examples/newsletter.test.ts'
}
/** Modules the fixtures stand in for: the test helper whose app lists the newsletter, as the registry would. */
const STAND_INS: Record<string, string> = {
  'test/helpers/app': 'test/fixtures/newsletter/app'
}

const asShown = asShownIn(FIXTURES, STAND_INS)
const asRun = (resolved: string) => resolved

const read = (path: string) => readFile(join(ROOT, path), 'utf8')
const blocksOf = async () => fileBlocks(GUIDE, await read(GUIDE))

t.test('the guide\'s screen, server module and test are the code the tests run', async (t) => {
  await assertBlocksAreFixtures(t, GUIDE, FIXTURES, STAND_INS)
})

t.test('the guide\'s registry is the app\'s, with the newsletter\'s line as the fixture registers it', async (t) => {
  const shown = 'src/screens/index.ts'
  const block = (await blocksOf()).get(shown)
  t.ok(block, 'the guide shows the registry')
  // Lines compared one by one, without the comma that depends on the line's place in the object.
  const lines = (code: string) => code.split('\n').map((line) => line.trim().replace(/,$/, '')).filter(Boolean)
  const registries = new Set([
    // normalized() drops a block's first line, which names its file: the registry's own file has no such line.
    ...lines(normalized(`// ${shown}\n${await read(shown)}`, shown, asRun)),
    ...lines(normalized(await read('test/fixtures/newsletter/screens.ts'), 'test/fixtures/newsletter/screens.ts', asRun))
  ])
  const guide = lines(normalized(block ?? '', shown, asShown))
  t.ok(guide.some((line) => line.startsWith('export const newsletter =')), 'the guide adds the newsletter')
  for (const line of guide) t.ok(registries.has(line), `"${line}" is in src/screens/index.ts or the fixture's registry`)
})
