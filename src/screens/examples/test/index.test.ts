import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import t from 'tap'
import * as SCREENS from '../../index.js'
import * as EXAMPLES from '../index.js'
import type { ScreenRegistry } from '../../../ui/define-screen.js'
import { loadScreen, ScreenTableContext } from '../../../ui/screen-table.js'
import { build } from '../../../../test/helpers/app.js'
import { projectCopy, runIn, TAP, TSC } from '../../../../test/helpers/project-copy.js'

const EXAMPLES_PATH = '/examples'

// The removal below type-checks, builds and tests a copy of the project: over a minute on two busy cores, more than
// the file's default limit.
t.setTimeout(5 * 60_000)

/**
 * The list of examples (src/screens/examples/examples.tsx), the home page's link to it, and removing the examples:
 * deleting this folder and the registry's one line that names it (docs/examples.md).
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

t.test('removing the examples is one step: with this folder and the registry\'s one line deleted, the project type-checks, builds and passes its tests of the shell', async (t) => {
  const copy = projectCopy(t)
  const registryPath = join(copy, 'src/screens/index.ts')
  const lines = readFileSync(registryPath, 'utf8').split('\n')
  const naming = lines.filter((line) => line.includes('examples'))
  t.equal(naming.length, 1, 'one line names them')
  t.match(naming[0], /^export \* from '\.\/examples\/index\.js'/, 'and takes them in')
  writeFileSync(registryPath, lines.filter((line) => line !== naming[0]).join('\n'))
  rmSync(join(copy, 'src/screens/examples'), { recursive: true })

  const [typed, typeErrors] = runIn(copy, process.execPath, [TSC, '--noEmit'])
  t.ok(typed, 'the whole project type-checks: nothing else imports them', typeErrors)
  const [built, buildErrors] = runIn(copy, 'npm', ['run', '--silent', 'build'])
  t.ok(built, 'it builds', buildErrors)
  // The tests that read the registry and the build: the screens, the document, the JavaScript budget; and those of the
  // router, tracing and the flash toast, which once asked for an example's address.
  const tests = ['test/server/screens.test.ts', 'test/server/document.test.ts', 'test/build/size-budget.test.ts', 'test/server/trailing-slash.test.ts', 'test/server/tracing.test.ts', 'test/browser/flash-toast-without-javascript.test.ts']
  const [passed, failures] = runIn(copy, process.execPath, [TAP, '--disable-coverage', ...tests])
  t.ok(passed, `and passes ${tests.join(', ')}`, failures)
})
