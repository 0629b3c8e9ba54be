import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import { ROOT } from '../helpers/dockerfile.js'

// test/README.md maps behaviour to file: a test it does not name is one nobody finds, and a name with no file misleads.
const EXAMPLES_TESTS = 'src/screens/examples/test/'

/** Every file the map's right-hand column names, as a path from the project root. */
function mapped (): Set<string> {
  const map = readFileSync(join(ROOT, 'test', 'README.md'), 'utf8')
  const files = new Set<string>()
  for (const line of map.split('\n').filter((line) => line.startsWith('|'))) {
    const cell = line.split('|').at(-2) ?? ''
    const folder = cell.includes(`${EXAMPLES_TESTS}:`) ? EXAMPLES_TESTS : 'test/'
    for (const [name] of cell.matchAll(/[\w./-]+\.test\.tsx?/g)) files.add(folder + name)
  }
  return files
}

function testFiles (dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.test\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    // Fixtures are run by the tests that name them (failing.test.ts fails on purpose).
    .filter((path) => !path.startsWith('test/fixtures/'))
}

t.test('test/README.md names every test file, and only files that exist', async (t) => {
  const named = mapped()
  t.same([...named].filter((path) => !existsSync(join(ROOT, path))), [], 'no row names a file that does not exist')
  t.same([...testFiles('test'), ...testFiles(EXAMPLES_TESTS)].filter((path) => !named.has(path)), [], 'every test file has a row')
})
