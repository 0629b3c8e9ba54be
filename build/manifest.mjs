// Which browser files a document loads: the shell every page needs, and each page's own chunks by page id.
// The server writes its <script>, <link rel="modulepreload"> and stylesheet tags from the manifest made here.
import { join, relative } from 'node:path'
import { clientOut, root } from './paths.mjs'

const ENTRY = 'src/client/entry.tsx'
const STYLES = 'src/ui/styles.css'
const PAGE_MODULE = /^src\/ui\/pages\/([\w-]+)\.tsx$/

/** An output and every chunk it imports statically, transitively (what loading it waits for), itself first. */
function withStaticImports (metafile, file) {
  const found = new Set([file])
  const visit = (output) => {
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || found.has(imported.path)) continue
      found.add(imported.path)
      visit(imported.path)
    }
  }
  visit(file)
  return [...found]
}

/** An entry's output and every chunk it imports statically: for the client entry, the shell every document loads. */
export function initialOutputs (metafile, entryPoint = ENTRY) {
  const entry = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === entryPoint)?.[0]
  if (!entry) throw new Error(`the build produced no output for ${entryPoint}`)
  return withStaticImports(metafile, entry)
}

/**
 * Each page's own chunks, by page id (its file name in src/ui/pages/): the
 * chunk esbuild split off for the page's dynamic import, and what it imports
 * that the shell does not already load.
 * @returns {Record<string, string[]>}
 */
export function pageOutputs (metafile, pageModule = PAGE_MODULE) {
  const shell = new Set(initialOutputs(metafile))
  /** @type {Record<string, string[]>} */
  const pages = {}
  for (const [file, output] of Object.entries(metafile.outputs)) {
    const id = pageModule.exec(output.entryPoint ?? '')?.[1]
    if (id) pages[id] = withStaticImports(metafile, file).filter((chunk) => !shell.has(chunk))
  }
  return pages
}

/** The asset manifest (dist/manifest.json) from the browser build's metafile, as URLs. */
export function manifestFrom (metafile) {
  const toUrl = (file) => '/' + relative(clientOut, join(root, file)).split('\\').join('/')
  const styles = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === STYLES)
  if (!styles) throw new Error('the build produced no stylesheet')
  const [entry, ...preloads] = initialOutputs(metafile).map(toUrl)
  const pages = Object.fromEntries(Object.entries(pageOutputs(metafile)).map(([id, files]) => [id, files.map(toUrl)]))
  return { entry, styles: [toUrl(styles[0])], preloads, pages }
}
