// Which browser files a document loads; the server writes its script, preload and stylesheet tags from it.
import { join, relative } from 'node:path'
import { root } from './paths.mjs'

const ENTRY = 'src/client/entry.tsx'
const STYLES = 'src/ui/styles.css'

/** Itself first, then every chunk loading it waits for. */
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

export function initialOutputs (metafile, entryPoint = ENTRY) {
  const entry = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === entryPoint)?.[0]
  if (!entry) throw new Error(`the build produced no output for ${entryPoint}`)
  return withStaticImports(metafile, entry)
}

/**
 * A screen without a chunk of its own fails the build: its view would be in the shell, or never preloaded.
 * @param {Record<string, string>} modules
 * @returns {Record<string, string[]>}
 */
export function screenOutputs (metafile, modules, entryPoint = ENTRY) {
  const shell = new Set(initialOutputs(metafile, entryPoint))
  const chunkOf = new Map(Object.entries(metafile.outputs).filter(([, output]) => output.entryPoint).map(([file, output]) => [output.entryPoint, file]))
  return Object.fromEntries(Object.entries(modules).map(([id, module]) => {
    const chunk = chunkOf.get(module)
    // Imported statically too, the view's code moves to a chunk the shell loads, and its own chunk only re-exports it.
    if (!chunk || shell.has(chunk) || !Object.hasOwn(metafile.outputs[chunk].inputs, module)) throw new Error(`the screen "${id}" has no chunk of its own: ${module} is imported statically by a module the shell loads; import it only from src/screens/index.ts`)
    return [id, withStaticImports(metafile, chunk).filter((file) => !shell.has(file))]
  }))
}

const DEFERRED_STORE = 'src/client/deferred-store.ts'

export function deferredOutputs (metafile, entryPoint = ENTRY) {
  const shell = new Set(initialOutputs(metafile, entryPoint))
  const chunk = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === DEFERRED_STORE)?.[0]
  if (!chunk || shell.has(chunk)) throw new Error(`${DEFERRED_STORE} has no chunk of its own: import it only through import()`)
  return withStaticImports(metafile, chunk).filter((file) => !shell.has(file))
}

/**
 * @param {Record<string, string>} screens the view's source module by screen id (screenModules)
 * @param {string} clientDir the folder the server serves them from: the production build's, or npm run dev's
 */
export function manifestFrom (metafile, screens, clientDir) {
  const toUrl = (file) => '/' + relative(clientDir, join(root, file)).split('\\').join('/')
  const styles = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === STYLES)
  if (!styles) throw new Error('the build produced no stylesheet')
  const [entry, ...preloads] = initialOutputs(metafile).map(toUrl)
  const pages = Object.fromEntries(Object.entries(screenOutputs(metafile, screens)).map(([id, files]) => [id, files.map(toUrl)]))
  return { entry, styles: [toUrl(styles[0])], preloads, pages, deferred: deferredOutputs(metafile).map(toUrl) }
}
