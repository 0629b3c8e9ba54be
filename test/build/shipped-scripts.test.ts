import t from 'tap'
import type * as esbuild from 'esbuild'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { SourceMap, type SourceMapPayload } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { buildBrowserFiles, clientOptions } from '../../build/client.mjs'
import { initialOutputs } from '../../build/manifest.mjs'
import { DIST_DIR } from '../../src/server/app.js'

// What `npm run build` wrote (npm test builds first): the browser's scripts
// after esbuild, the shell's fold into one file and terser.
const PROJECT = join(DIST_DIR, '..')
const ASSETS = join(DIST_DIR, 'client', 'assets')
const metafile = JSON.parse(readFileSync(join(DIST_DIR, 'client-meta.json'), 'utf8')) as esbuild.Metafile
const manifest = JSON.parse(readFileSync(join(DIST_DIR, 'manifest.json'), 'utf8')) as { entry: string, preloads: string[], pages: Record<string, string[]> }
const scripts = readdirSync(ASSETS).filter((file) => file.endsWith('.js'))
const script = (prefix: string) => scripts.find((file) => file.startsWith(`${prefix}-`)) ?? `${prefix}: no such script`

t.test('the shell is one file; what later chunks share with it, they import from it', async (t) => {
  const shell = initialOutputs(metafile)
  t.same(shell.map((file) => `/${file.replace(/^dist\/client\//, '')}`), [manifest.entry], 'the entry imports no chunk statically')
  t.same(manifest.preloads, [], 'so the document preloads none besides its page\'s')
  const reactHolders = Object.entries(metafile.outputs).filter(([, output]) => Object.keys(output.inputs).some((input) => input.startsWith('node_modules/react/')))
  t.same(reactHolders.map(([file]) => file), shell, 'React is in the entry, and nowhere else')
  const home = manifest.pages.home?.[0] ?? ''
  t.match(readFileSync(join(DIST_DIR, 'client', home), 'utf8'), `from"./${manifest.entry.split('/').pop()}"`, 'the home page takes its JSX runtime from the entry')
  for (const file of scripts) {
    const code = readFileSync(join(ASSETS, file), 'utf8')
    const named = [...code.matchAll(/(?:from|import)\s*\(?\s*"(\.\/[^"]+)"/g)].map(([, path]) => path!)
    t.same(named.filter((path) => !existsSync(join(ASSETS, path))), [], `${file}: every script it imports exists`)
  }
})

/** Where the map of `file` says the first occurrence of `text` in it came from, as [source, line]. */
function origin (file: string, text: string): [string, string] {
  const code = readFileSync(join(ASSETS, file), 'utf8')
  const payload = JSON.parse(readFileSync(join(ASSETS, `${file}.map`), 'utf8')) as SourceMapPayload & { sourcesContent: string[] }
  const before = code.slice(0, code.indexOf(text)).split('\n')
  const found = new SourceMap(payload).findEntry(before.length - 1, (before.at(-1) ?? '').length) as { originalSource?: string, originalLine?: number }
  const source = found.originalSource ?? ''
  const content = payload.sourcesContent[payload.sources.indexOf(source)] ?? ''
  return [join(ASSETS, source).slice(PROJECT.length + 1), content.split('\n')[found.originalLine ?? -1] ?? '']
}

t.test('their source maps still lead to the line of the source', async (t) => {
  const cases: Array<[string, string, string]> = [
    [script('entry'), 'useTheme must be used inside <ThemeProvider>', 'src/ui/theme.tsx'],
    [script('entry'), 'react.transitional.element', 'node_modules/react/cjs/react.production.js'],
    [script('home'), 'The shell every screen of Agent Stack is rendered in.', 'src/screens/home.tsx'],
    [script('theme-sync'), 'agent-stack:theme', 'src/ui/theme-sync.ts']
  ]
  for (const [file, text, source] of cases) {
    const [found, line] = origin(file, text)
    t.equal(found, source, `${file}: "${text}" comes from ${source}`)
    t.ok(line.includes(text), `from the line that says it: ${line.trim()}`)
  }
})

t.test('a browser entry that awaits at its top level fails the build, saying why', async (t) => {
  const outdir = await mkdtemp(join(tmpdir(), 'agent-stack-awaiting-entry-'))
  t.teardown(() => rm(outdir, { recursive: true, force: true }))
  const entry = join(PROJECT, 'src', 'client', 'entry.tsx')
  // The page's chunk, awaited by hydration, imports React from this entry: the page would never hydrate.
  const awaitingEntry: esbuild.Plugin = {
    name: 'awaiting-entry',
    setup (build) {
      build.onLoad({ filter: /[\\/]src[\\/]client[\\/]entry\.tsx$/ }, () => ({ contents: "import { hydrateDocument } from './hydrate.js'\nawait hydrateDocument()\n", loader: 'tsx', resolveDir: dirname(entry) }))
    }
  }
  const options = clientOptions as esbuild.BuildOptions
  await t.rejects(buildBrowserFiles({ ...options, outdir, plugins: [awaitingEntry, ...options.plugins ?? []] }), /src\/client\/entry\.tsx \(or a module it imports\) awaits at its top level/)
})
