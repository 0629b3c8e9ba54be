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
