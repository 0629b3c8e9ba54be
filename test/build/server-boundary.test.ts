import t, { type Test } from 'tap'
import * as esbuild from 'esbuild'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { serverCodeStaysOnServer } from '../../build/boundary.mjs'
import { DIST_DIR } from '../../src/server/app.js'

const SRC = new URL('../../src/', import.meta.url).pathname
const NODE_MODULES = new URL('../../node_modules/', import.meta.url).pathname

/** Bundles `source` for the browser with the build's boundary plugin; resolves to the errors esbuild reports. */
async function browserBuildErrors (t: Test, source: string, beside: Record<string, string> = {}): Promise<string[]> {
  return (await browserBuild(t, source, beside)).errors
}

/** The same build, with files beside the entry; resolves to the errors and the inputs of the bundle. */
async function browserBuild (t: Test, source: string, beside: Record<string, string> = {}): Promise<{ errors: string[], inputs: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'boundary-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const entry = join(dir, 'page.tsx')
  await writeFile(entry, source)
  for (const [name, code] of Object.entries(beside)) {
    await mkdir(dirname(join(dir, name)), { recursive: true })
    await writeFile(join(dir, name), code)
  }
  try {
    const { metafile } = await esbuild.build({ entryPoints: [entry], bundle: true, write: false, platform: 'browser', format: 'esm', jsx: 'automatic', logLevel: 'silent', nodePaths: [NODE_MODULES], metafile: true, plugins: [serverCodeStaysOnServer] })
    return { errors: [], inputs: Object.keys(metafile.inputs) }
  } catch (error) {
    return { errors: (error as esbuild.BuildFailure).errors.map(({ text }) => text), inputs: [] }
  }
}

t.test('a page whose loader imports node:fs cannot be bundled for the browser', async (t) => {
  const errors = await browserBuildErrors(t, `
    import { readFileSync } from 'node:fs'
    export const page = { id: 'report', load: () => ({ text: readFileSync('/etc/hostname', 'utf8') }) }
  `)
  t.equal(errors.length, 1)
  t.match(errors[0], /"node:fs" is server-only and cannot be imported from browser code/)
})

t.test('browser code cannot import a server module, such as the server\'s screen loading', async (t) => {
  const errors = await browserBuildErrors(t, `import { loadScreens } from '${SRC}server/screens/load-screens.js'; console.log(loadScreens)`)
  t.match(errors.join('\n'), /server\/screens\/load-screens\.js" is server-only/)
})

// The server module reads a file, as a loader reading a database would: in the bundle, it would fail the build.
const SCREEN = {
  'report.tsx': "export default { path: '/report', component: () => null }",
  'report.server.ts': "import { readFileSync } from 'node:fs'\nexport const loader = () => ({ text: readFileSync('/etc/hostname', 'utf8') })"
}

t.test('a screen\'s server module is left out of the browser bundle when the registry names it', async (t) => {
  const { errors, inputs } = await browserBuild(t, "export const SCREENS = { report: { view: () => import('./report.js'), server: () => import('./report.server.js') } }", SCREEN)
  t.same(errors, [])
  t.ok(inputs.some((input) => input.endsWith('report.tsx')), 'the view is bundled')
  t.notOk(inputs.some((input) => input.includes('.server')), 'its server module is not')
})

t.test('browser code that imports a screen\'s server module is refused by name', async (t) => {
  const errors = await browserBuildErrors(t, "import { loader } from './report.server.js'; console.log(loader)", SCREEN)
  t.match(errors.join('\n'), /"\.\/report\.server\.js" is server-only and cannot be imported from browser code/)
})

t.test('browser code cannot import a Node module by its bare name either', async (t) => {
  for (const specifier of ['fs', 'node:crypto']) {
    const errors = await browserBuildErrors(t, `import * as x from '${specifier}'; console.log(x)`)
    t.match(errors.join('\n'), new RegExp(`"${specifier}" is server-only and cannot be imported from browser code`), specifier)
  }
})

t.test('a server package is refused by what it needs of Node, named with the file that needs it', async (t) => {
  for (const name of ['fastify', '@fastify/cookie']) {
    const errors = await browserBuildErrors(t, `import * as x from '${name}'; console.log(x)`)
    t.ok(errors.length > 0, `${name}: refused`)
    t.match(errors.join('\n'), /"[^"]+" is server-only: it imports Node's "[^"]+" \(node_modules\/[^)]+\), which no browser has/, name)
  }
})

t.test('a browser library that is on no list bundles: only server code is refused', async (t) => {
  // isbot needs nothing of Node's; a list of browser packages used to call it "server-only".
  const errors = await browserBuildErrors(t, "import { isbot } from 'isbot'; console.log(isbot('Mozilla/5.0'))")
  t.same(errors, [])
})

// The field's two ways: `false` (nothing in a browser), or a file of the package in its place.
for (const [way, field] of [['leaves it out', false], ['names a file in its place', './browser-crypto.js']] as const) {
  t.test(`a package whose "browser" field ${way} for the Node module it imports bundles`, async (t) => {
    const { errors, inputs } = await browserBuild(t, "import { id } from 'random-id'; console.log(id())", {
      'node_modules/random-id/package.json': JSON.stringify({ name: 'random-id', main: 'index.js', browser: { crypto: field } }),
      'node_modules/random-id/index.js': "const crypto = require('crypto'); exports.id = () => (crypto.randomUUID ?? (() => globalThis.crypto.randomUUID()))()",
      'node_modules/random-id/browser-crypto.js': 'exports.randomUUID = () => globalThis.crypto.randomUUID()'
    })
    t.same(errors, [])
    t.ok(inputs.some((input) => input.endsWith('node_modules/random-id/index.js')), 'the package is in the bundle')
  })
}

t.test('the packages the UI is built on still bundle', async (t) => {
  const errors = await browserBuildErrors(t, `import { useState } from 'react'; import { toast } from 'sonner'; import * as SCREENS from '${SRC}screens/index.js'; console.log(useState, toast, SCREENS)`)
  t.same(errors, [])
})

t.test('the built browser bundle holds no server module', async (t) => {
  const metafile = JSON.parse(await readFile(join(DIST_DIR, 'client-meta.json'), 'utf8')) as { inputs: Record<string, unknown> }
  const inputs = Object.keys(metafile.inputs)
  t.ok(inputs.some((input) => input.startsWith('src/ui/')), 'the metafile lists our modules')
  t.same(inputs.filter((input) => input.startsWith('src/server/') || /\.server\.[jt]sx?$/.test(input)), [])
})
