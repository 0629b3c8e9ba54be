import t, { type Test } from 'tap'
import type * as esbuild from 'esbuild'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { nameByContent } from '../../build/content-names.mjs'
import { DIST_DIR } from '../../src/server/app.js'

// The browser's scripts are named after their final bytes (after the fold and terser), not after what esbuild
// first wrote: a script cached for a year under a name must never change under it.

const PROJECT = join(DIST_DIR, '..')

/** Two scripts as a build leaves them, a page importing a shared chunk, with a source map each; `shared` is the chunk's code. */
async function written (t: Test, shared: string) {
  const dir = join(DIST_DIR, `content-names-${Math.random().toString(36).slice(2)}`)
  await mkdir(dir, { recursive: true })
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const out = (file: string) => relative(PROJECT, join(dir, file))
  await writeFile(join(dir, 'page-AAAAAAAA.js'), 'import{x}from"./shared-BBBBBBBB.js";x()\n//# sourceMappingURL=page-AAAAAAAA.js.map')
  await writeFile(join(dir, 'page-AAAAAAAA.js.map'), JSON.stringify({ version: 3, file: 'page-AAAAAAAA.js', sources: [], mappings: '' }))
  await writeFile(join(dir, 'shared-BBBBBBBB.js'), shared)
  const outputs = {
    [out('page-AAAAAAAA.js')]: { imports: [{ path: out('shared-BBBBBBBB.js'), kind: 'import-statement' }] },
    [out('page-AAAAAAAA.js.map')]: { imports: [] },
    [out('shared-BBBBBBBB.js')]: { imports: [] }
  } as unknown as esbuild.Metafile['outputs']
  const metafile = await nameByContent({ inputs: {}, outputs })
  const files = (await readdir(dir)).sort()
  return { dir, files, metafile, name: (prefix: string) => files.find((file) => file.startsWith(`${prefix}-`) && file.endsWith('.js')) ?? '' }
}

t.test('a script whose bytes change gets a new name, and so does every script that imports it', async (t) => {
  const before = await written(t, 'export const x=()=>1')
  const after = await written(t, 'export const x=()=>2')
  t.not(after.name('shared'), before.name('shared'), 'the changed chunk')
  t.not(after.name('page'), before.name('page'), 'the page importing it, whose import names it')
  const again = await written(t, 'export const x=()=>1')
  t.same(again.files, before.files, 'the same bytes, the same names')
})

t.test('references, source maps and the metafile follow the new names', async (t) => {
  const { dir, files, metafile, name } = await written(t, 'export const x=()=>1')
  t.same(files, [name('page'), `${name('page')}.map`, name('shared')].sort(), 'no file under its old name')
  const page = await readFile(join(dir, name('page')), 'utf8')
  t.ok(page.includes(`from"./${name('shared')}"`), 'the import names the chunk\'s new file')
  t.ok(page.endsWith(`//# sourceMappingURL=${name('page')}.map`), 'and the map comment its new map')
  t.equal(JSON.parse(await readFile(join(dir, `${name('page')}.map`), 'utf8')).file, name('page'))
  const pageOutput = Object.entries(metafile.outputs).find(([file]) => file.endsWith(name('page')))
  t.ok(pageOutput?.[1].imports.some((imported) => imported.path.endsWith(name('shared'))), 'the metafile\'s imports too')
})

/** Scripts as a build leaves them, each with its code and the scripts it imports, named `<prefix>-<8 characters>.js`. */
async function writtenScripts (t: Test, scripts: Record<string, { code: string, imports: string[] }>) {
  const dir = join(DIST_DIR, `content-names-${Math.random().toString(36).slice(2)}`)
  await mkdir(dir, { recursive: true })
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const out = (file: string) => relative(PROJECT, join(dir, file))
  for (const [file, { code }] of Object.entries(scripts)) await writeFile(join(dir, file), code)
  const outputs = Object.fromEntries(Object.entries(scripts).map(([file, { imports }]) => [
    out(file), { imports: imports.map((imported) => ({ path: out(imported), kind: 'import-statement' })) }
  ])) as unknown as esbuild.Metafile['outputs']
  return { dir, rename: () => nameByContent({ inputs: {}, outputs }) }
}

t.test('two chunks in a cycle with the entry keep a name each: neither overwrites the other', async (t) => {
  // The fold makes the entry and the chunks that share its code import each other, so all three reach the same set.
  const { dir, rename } = await writtenScripts(t, {
    'entry-AAAAAAAA.js': { code: 'import("./chunk-BBBBBBBB.js");import("./chunk-CCCCCCCC.js");export const r=1', imports: ['chunk-BBBBBBBB.js', 'chunk-CCCCCCCC.js'] },
    'chunk-BBBBBBBB.js': { code: 'import{r}from"./entry-AAAAAAAA.js";export const forms=r+1', imports: ['entry-AAAAAAAA.js'] },
    'chunk-CCCCCCCC.js': { code: 'import{r}from"./entry-AAAAAAAA.js";export const wait=r+2', imports: ['entry-AAAAAAAA.js'] }
  })
  await rename()
  const chunks = (await readdir(dir)).filter((file) => file.startsWith('chunk-'))
  t.equal(chunks.length, 2, `both chunks are there: ${chunks.join(', ')}`)
  const codes = await Promise.all(chunks.map((file) => readFile(join(dir, file), 'utf8')))
  t.same(codes.map((code) => code.match(/export const (\w+)/)?.[1]).sort(), ['forms', 'wait'], 'each under its own name')
})

t.test('two scripts that would ship under one name fail the build, naming both', async (t) => {
  const { rename } = await writtenScripts(t, {
    'chunk-BBBBBBBB.js': { code: 'export const x=1', imports: [] },
    'chunk-CCCCCCCC.js': { code: 'export const x=1', imports: [] }
  })
  await t.rejects(rename(), /chunk-BBBBBBBB\.js and chunk-CCCCCCCC\.js would both ship as chunk-[A-Z0-9]{8}\.js/)
})

