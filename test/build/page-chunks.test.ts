import t, { type Test } from 'tap'
import * as esbuild from 'esbuild'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildBrowserFiles, clientOptions } from '../../build/client.mjs'
import { gzipForServing } from '../../build/compress.mjs'
import { initialOutputs, screenOutputs } from '../../build/manifest.mjs'
import { screenModules } from '../../build/screens.mjs'
import { DIST_DIR } from '../../src/server/app.js'

// A product of ten screens, built as `npm run build` builds the browser
// files, with a registry of its own in place of src/screens/index.ts.
const PROJECT = join(DIST_DIR, '..')
const WORK = join(DIST_DIR, 'ten-pages')
const PAGE_IDS = Array.from({ length: 10 }, (_, index) => `screen${index + 1}`)
const { config } = JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { config: { pageJavaScriptBudgetKiB: number } }

/** A page of a few kilobytes, each with text of its own, so no two compress alike. */
function pageSource (id: string): string {
  const rows = Array.from({ length: 40 }, (_, row) => `<li key='${row}'>{data.items[${row}] ?? '${id} row ${row}: ${'lorem ipsum dolor sit amet '.repeat(1 + (row % 3))}'}</li>`)
  return `import { defineScreen } from '../../../src/ui/define-screen.js'\nexport default defineScreen<{ items: string[] }>({ path: '/${id}', component: ({ data }) => <main><h1>${id}</h1><ol>\n${rows.join('\n')}\n</ol></main> })\n`
}

/** Named after nothing in particular: the build finds each screen's chunk by what its import resolves to. */
const fileOf = (id: string) => `view-${id.length}-${id}`

function registrySource (): string {
  return PAGE_IDS.map((id) => `export const ${id} = { view: () => import('./screens/${fileOf(id)}.js') }\n`).join('')
}

/** Sends our sources' imports of the registry to the generated one. */
const tenScreenRegistry = {
  name: 'ten-screen-registry',
  setup (build: esbuild.PluginBuild) {
    build.onResolve({ filter: /screens\/index\.js$/ }, ({ importer }) => importer.startsWith(WORK) ? undefined : { path: join(WORK, 'index.ts') })
  }
}

t.test('with ten pages, each page is a chunk of its own and the first load stays within the budget', async (t) => {
  rmSync(WORK, { recursive: true, force: true })
  mkdirSync(join(WORK, 'screens'), { recursive: true })
  t.teardown(() => rmSync(WORK, { recursive: true, force: true }))
  for (const id of PAGE_IDS) writeFileSync(join(WORK, 'screens', `${fileOf(id)}.tsx`), pageSource(id))
  writeFileSync(join(WORK, 'index.ts'), registrySource())

  const metafile = await buildBrowserFiles({ ...(clientOptions as esbuild.BuildOptions), outdir: join(WORK, 'out'), plugins: [tenScreenRegistry, ...(clientOptions as esbuild.BuildOptions).plugins ?? []] })
  const gzipBytes = async (files: string[]) => {
    let sum = 0
    for (const file of files) sum += (await gzipForServing(readFileSync(join(PROJECT, file)))).length
    return sum
  }

  const modules = await screenModules(join(WORK, 'index.ts'))
  t.equal(modules.screen1, `dist/ten-pages/screens/${fileOf('screen1')}.tsx`, 'a screen\'s module is what its import resolves to')
  const chunks = screenOutputs(metafile, modules)
  t.same(Object.keys(chunks).sort(), [...PAGE_IDS].sort(), 'ten screens, ten chunks of their own')

  const shell = initialOutputs(metafile)
  const shellInputs = shell.flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {}))
  t.notOk(shellInputs.some((input) => input.includes('ten-pages/screens/')), 'no page\'s code is in the shell')

  const shellBytes = await gzipBytes(shell)
  let heaviest = 0
  for (const id of PAGE_IDS) {
    const own = chunks[id] ?? []
    t.ok(own.length >= 1, `${id} has its own chunk`)
    heaviest = Math.max(heaviest, await gzipBytes(own))
  }
  const first = shellBytes + heaviest
  t.comment(`shell ${(shellBytes / 1024).toFixed(1)} KiB + heaviest page ${(heaviest / 1024).toFixed(1)} KiB gzip`)
  t.ok(first <= config.pageJavaScriptBudgetKiB * 1024, `a visit loads ${(first / 1024).toFixed(1)} KiB ≤ ${config.pageJavaScriptBudgetKiB} KiB`)
})

/** A folder under dist/ holding `files` by name, with a screen `notes` of path /notes among them; gone at teardown. */
function scratchScreens (t: Test, name: string, files: Record<string, string>): string {
  const dir = join(DIST_DIR, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'notes.tsx'), "export default { path: '/notes', component: () => null }\n")
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
  return dir
}

t.test('a screen whose view the shell also imports statically fails the build, named', async (t) => {
  const dir = scratchScreens(t, 'static-screen', {
    'index.ts': "import './notes.js'\nexport const notes = { view: () => import('./notes.js') }\n",
    'entry.ts': "import * as SCREENS from './index.js'\nconsole.log(SCREENS)\n"
  })
  const entry = 'dist/static-screen/entry.ts'
  const { metafile } = await esbuild.build({ absWorkingDir: PROJECT, entryPoints: [entry], bundle: true, splitting: true, format: 'esm', outdir: join(dir, 'out'), write: false, metafile: true, logLevel: 'silent' })
  const modules = await screenModules(join(dir, 'index.ts'))
  t.throws(() => screenOutputs(metafile, modules, entry), /the screen "notes" has no chunk of its own: dist\/static-screen\/notes\.tsx is imported statically/)
})

t.test('a screen whose registry line forgets the .server.ts beside its view fails the build, named', async (t) => {
  const dir = scratchScreens(t, 'forgotten-server', {
    'notes.server.ts': 'export const loader = () => ({})\n',
    'index.ts': "export const notes = { view: () => import('./notes.js') }\n"
  })
  await t.rejects(screenModules(join(dir, 'index.ts')), /the screen "notes": dist\/forgotten-server\/notes\.server\.ts is beside its view, but its registry line names no server module/)
  writeFileSync(join(dir, 'index.ts'), "export const notes = { view: () => import('./notes.js'), server: () => import('./notes.server.js') }\n")
  t.same(await screenModules(join(dir, 'index.ts')), { notes: 'dist/forgotten-server/notes.tsx' }, 'named, it builds')
})

t.test('the registry imports its screens only through import(): no screen can import its way back into it', async (t) => {
  const registry = 'src/screens/index.ts'
  const { metafile } = await esbuild.build({ absWorkingDir: PROJECT, entryPoints: [registry], bundle: true, write: false, metafile: true, format: 'esm', packages: 'external', jsx: 'automatic', logLevel: 'silent' })
  const imports = metafile.inputs[registry]?.imports ?? []
  t.ok(imports.some(({ kind }) => kind === 'dynamic-import'), 'the screens, each through import()')
  // Statically, only groups of lines kept apart (src/screens/examples/index.ts), so one line adds or removes them all.
  for (const group of imports.filter(({ kind }) => kind !== 'dynamic-import').map(({ path }) => path)) {
    t.match(group, /^src\/screens\/[^/]+\/index\.ts$/, `${group} is a group of registry lines`)
    t.same(metafile.inputs[group]?.imports.filter(({ kind }) => kind !== 'dynamic-import'), [], `${group} imports its screens only through import() too`)
  }
})
