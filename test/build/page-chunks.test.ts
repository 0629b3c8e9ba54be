import t from 'tap'
import * as esbuild from 'esbuild'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildBrowserFiles, clientOptions } from '../../build/client.mjs'
import { gzipForServing } from '../../build/compress.mjs'
import { initialOutputs, pageOutputs } from '../../build/manifest.mjs'
import { DIST_DIR } from '../../src/server/app.js'

// A product of ten pages, built as `npm run build` builds the browser
// files, with a page table of its own in place of src/ui/page-table.ts.
const PROJECT = join(DIST_DIR, '..')
const WORK = join(DIST_DIR, 'ten-pages')
const PAGE_IDS = Array.from({ length: 10 }, (_, index) => `screen-${index + 1}`)
const { config } = JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { config: { initialJavaScriptBudgetKiB: number } }

/** A page of a few kilobytes, each with text of its own, so no two compress alike. */
function pageSource (id: string): string {
  const rows = Array.from({ length: 40 }, (_, row) => `<li key='${row}'>{data.items[${row}] ?? '${id} row ${row}: ${'lorem ipsum dolor sit amet '.repeat(1 + (row % 3))}'}</li>`)
  return `export function Page ({ data }: { data: { items: string[] } }) {\n  return <main><h1>${id}</h1><ol>\n${rows.join('\n')}\n</ol></main>\n}\n`
}

function pageTableSource (): string {
  const pages = PAGE_IDS.map((id) => `definePage({ id: '${id}', path: '/${id}', load: () => import('./pages/${id}.js').then((module) => module.Page) })`)
  return `import { definePage, type AnyPage } from '../../src/ui/page-table.js'\nexport * from '../../src/ui/page-table.js'\nexport const PAGES: readonly AnyPage[] = [\n  ${pages.join(',\n  ')}\n]\n`
}

/** Sends our sources' imports of the page table to the generated one; the generated one still reaches the real one. */
const tenPageTable = {
  name: 'ten-page-table',
  setup (build: esbuild.PluginBuild) {
    build.onResolve({ filter: /page-table\.js$/ }, ({ importer }) => importer.startsWith(WORK) ? undefined : { path: join(WORK, 'page-table.ts') })
  }
}

t.test('with ten pages, each page is a chunk of its own and the first load stays within the budget', async (t) => {
  rmSync(WORK, { recursive: true, force: true })
  mkdirSync(join(WORK, 'pages'), { recursive: true })
  t.teardown(() => rmSync(WORK, { recursive: true, force: true }))
  for (const id of PAGE_IDS) writeFileSync(join(WORK, 'pages', `${id}.tsx`), pageSource(id))
  writeFileSync(join(WORK, 'page-table.ts'), pageTableSource())

  const metafile = await buildBrowserFiles({ ...(clientOptions as esbuild.BuildOptions), outdir: join(WORK, 'out'), plugins: [tenPageTable, ...(clientOptions as esbuild.BuildOptions).plugins ?? []] })
  const gzipBytes = async (files: string[]) => {
    let sum = 0
    for (const file of files) sum += (await gzipForServing(readFileSync(join(PROJECT, file)))).length
    return sum
  }

  // The generated pages live outside src/ui/pages/, so pageOutputs finds them by their own folder.
  const chunks = Object.fromEntries(Object.entries(pageOutputs(metafile, /^dist\/ten-pages\/pages\/([\w-]+)\.tsx$/)))
  t.same(Object.keys(chunks).sort(), [...PAGE_IDS].sort(), 'ten pages, ten chunks of their own')

  const shell = initialOutputs(metafile)
  const shellInputs = shell.flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {}))
  t.notOk(shellInputs.some((input) => input.includes('ten-pages/pages/')), 'no page\'s code is in the shell')

  const shellBytes = await gzipBytes(shell)
  let heaviest = 0
  for (const id of PAGE_IDS) {
    const own = chunks[id] ?? []
    t.ok(own.length >= 1, `${id} has its own chunk`)
    heaviest = Math.max(heaviest, await gzipBytes(own))
  }
  const first = shellBytes + heaviest
  t.comment(`shell ${(shellBytes / 1024).toFixed(1)} KiB + heaviest page ${(heaviest / 1024).toFixed(1)} KiB gzip`)
  t.ok(first <= config.initialJavaScriptBudgetKiB * 1024, `a visit loads ${(first / 1024).toFixed(1)} KiB ≤ ${config.initialJavaScriptBudgetKiB} KiB`)
})
