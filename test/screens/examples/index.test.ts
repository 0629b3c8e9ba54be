import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import t from 'tap'
import { SCREENS } from '../../../src/screens/index.js'
import { EXAMPLES } from '../../../src/screens/examples/index.js'
import type { ScreenRegistry } from '../../../src/ui/define-screen.js'
import { loadScreen, ScreenTableContext } from '../../../src/ui/screen-table.js'
import { build } from '../../helpers/app.js'

const EXAMPLES_PATH = '/examples'

/**
 * The list of examples (src/screens/examples/examples.tsx), the home page's link to it, and removing the examples:
 * deleting src/screens/examples/, test/screens/examples/ and the registry's two lines that name them (docs/examples.md).
 */

const links = (html: string) => [...html.matchAll(/<a href="([^"]+)"/g)].map(([, href]) => href)
const examplePaths = ['/examples/form', '/examples/time']

t.test('the home page links to the examples; the list links to each, and each back', async (t) => {
  const { app } = await build(t)
  const get = (url: string) => app.inject({ url, headers: { accept: 'text/html' } })
  t.ok(links((await get('/')).body).includes(EXAMPLES_PATH), 'the home page links to the list')

  const list = await get(EXAMPLES_PATH)
  t.equal(list.statusCode, 200)
  t.match(list.body, '<title>Examples | Agent Stack</title>')
  t.match(list.body, /<meta name="description" content="Working screens of Agent Stack[^"]*"/)
  for (const path of examplePaths) t.ok(links(list.body).includes(path), `the list links to ${path}`)
  t.ok(links(list.body).includes('/'), 'and home')

  const titles = new Set<string>()
  const descriptions = new Set<string>()
  for (const path of [EXAMPLES_PATH, ...examplePaths]) {
    const page = await get(path)
    t.equal(page.statusCode, 200, path)
    if (path !== EXAMPLES_PATH) t.ok(links(page.body).includes(EXAMPLES_PATH), `${path} links back`)
    titles.add(/<title>([^<]*)<\/title>/.exec(page.body)?.[1] ?? '')
    descriptions.add(/<meta name="description" content="([^"]*)"/.exec(page.body)?.[1] ?? '')
  }
  t.equal(titles.size, examplePaths.length + 1, 'each its own title')
  t.equal(descriptions.size, examplePaths.length + 1, 'each its own description')
})

t.test('removing the examples: the home page links to them only while the registry lists them', async (t) => {
  const home = (await loadScreen(SCREENS.home)).component
  const render = (registry: ScreenRegistry) => renderToStaticMarkup(createElement(ScreenTableContext, { value: registry }, createElement(home, { data: null })))
  t.ok(links(render(SCREENS)).includes(EXAMPLES_PATH), 'with them')
  const withoutExamples = Object.fromEntries(Object.entries(SCREENS).filter(([id]) => !Object.hasOwn(EXAMPLES, id)))
  t.same(links(render(withoutExamples)), [], 'without them, no dead link')
})

/** Where the examples may be named: their own folders, and the registry's one line (with its import). */
const OWN_FOLDERS = ['src/screens/examples/', 'test/screens/examples/']

t.test('nothing outside their folders imports the examples, so deleting them breaks nothing', async (t) => {
  const root = join(import.meta.dirname, '..', '..', '..')
  const sources = ['src', 'test', 'build'].flatMap((dir) => readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((file) => `${dir}/${file}`))
    .filter((file) => /\.(ts|tsx|mjs)$/.test(file) && !OWN_FOLDERS.some((folder) => file.startsWith(folder)))
  const importers = sources.filter((file) => /from '[^']*screens\/examples\/|import\('[^']*screens\/examples\//.test(readFileSync(join(root, file), 'utf8')) ||
    /from '\.\/examples\//.test(readFileSync(join(root, file), 'utf8')))
  t.same(importers, ['src/screens/index.ts'], 'only the registry')
  const registry = readFileSync(join(root, 'src/screens/index.ts'), 'utf8')
  t.same(registry.split('\n').filter((line) => line.includes('EXAMPLES')), [
    "import { EXAMPLES } from './examples/index.js'",
    '  ...EXAMPLES,'
  ], 'the two lines to delete')
})
