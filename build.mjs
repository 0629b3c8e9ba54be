// Builds the server bundle and the browser bundle with esbuild.
//   node build.mjs             build once
//   node build.mjs --if-stale  build only when dist/ is missing or older than the sources
// The development loop (npm run dev) is dev-loop.mjs.
import { execFileSync } from 'node:child_process'
import { createReadStream, createWriteStream } from 'node:fs'
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import zopfli from '@gfx/zopfli'
import { constants, createBrotliCompress, createGzip } from 'node:zlib'
import * as esbuild from 'esbuild'
import { minify } from 'terser'

export const root = dirname(fileURLToPath(import.meta.url))
export const dist = join(root, 'dist')
export const clientOut = join(dist, 'client')
const serverOut = join(dist, 'server')
export const manifestPath = join(dist, 'manifest.json')

const args = new Set(process.argv.slice(2))
const log = (...parts) => { if (!args.has('--quiet')) console.log(...parts) }

/** Sources whose change makes a build stale. */
const SOURCES = ['src', 'static', 'build.mjs', 'package.json', 'package-lock.json']

// sonner injects its stylesheet into <head> at import time, which the nonce-based
// CSP refuses; its styles ship in our hashed stylesheet instead (src/ui/styles.css).
export const sonnerWithoutStyleInjection = {
  name: 'sonner-without-style-injection',
  setup (build) {
    build.onLoad({ filter: /sonner[\\/]dist[\\/]index\.mjs$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8')
      const patched = source.replace('function __insertCSS(code) {', 'function __insertCSS(code) { return;')
      if (patched === source) throw new Error('sonner changed: its runtime style injection could not be disabled')
      return { contents: patched, loader: 'js' }
    })
  }
}

// React's Node renderer enters an AsyncLocalStorage for its work, which on
// Node 20 turns async hooks on for every later request, rendered or not
// (docs/decisions/server-renderer.md). So the renderer is bundled, and its
// node:async_hooks resolves to a storage for synchronous calls only.
const REACT_DOM = dirname(createRequire(import.meta.url).resolve('react-dom/package.json'))
const reactRendererWithoutAsyncHooks = (mode) => ({
  name: 'react-renderer-without-async-hooks',
  setup (build) {
    // The streaming renderer and the string one (for documents that render in one pass), each in the build's mode.
    build.onResolve({ filter: /^react-dom\/server$/ }, () => ({ path: 'react-dom/server', namespace: 'react-renderers' }))
    build.onLoad({ filter: /.*/, namespace: 'react-renderers' }, () => ({
      contents: `export { renderToPipeableStream } from ${JSON.stringify(join(REACT_DOM, 'cjs', `react-dom-server.node.${mode}.js`))}\n` +
        `export { renderToString } from ${JSON.stringify(join(REACT_DOM, 'cjs', `react-dom-server-legacy.node.${mode}.js`))}\n`,
      loader: 'js',
      resolveDir: REACT_DOM
    }))
    build.onResolve({ filter: /^(node:)?async_hooks$/ }, ({ importer }) => {
      if (!/[\\/]node_modules[\\/]react-dom[\\/]/.test(importer)) return undefined
      return { path: join(root, 'src', 'server', 'render-request-storage.ts') }
    })
  }
})

/** Packages our browser code may import; everything else (fastify, Node's modules, database drivers) is server-only. */
const BROWSER_PACKAGES = new Set(['react', 'react-dom', 'sonner', '@openreplay/tracker', '@epic-web/client-hints'])
const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
const SERVER_DIR = join(root, 'src', 'server') + sep

/**
 * The browser must never receive server code: the build fails when a module
 * of ours reachable from the client entry imports src/server/ or a package
 * that is not meant for the browser. Packages' own imports are theirs.
 */
export const serverCodeStaysOnServer = {
  name: 'server-code-stays-on-server',
  setup (build) {
    build.onResolve({ filter: /.*/ }, ({ path, importer, kind }) => {
      if (kind === 'entry-point' || /[\\/]node_modules[\\/]/.test(importer)) return undefined
      const local = path.startsWith('.') || isAbsolute(path)
      const refused = local ? resolve(dirname(importer), path).startsWith(SERVER_DIR) : !BROWSER_PACKAGES.has(packageName(path))
      if (!refused) return undefined
      return { errors: [{ text: `"${path}" is server-only and cannot be imported from browser code (${relative(root, importer)})` }] }
    })
  }
}

/**
 * The browser bundle's options; tests build entries of their own with them (test/helpers/test-client.ts).
 * @type {import('esbuild').BuildOptions & { metafile: true }}
 */
export const clientOptions = {
  entryPoints: { entry: 'src/client/entry.tsx', styles: 'src/ui/styles.css' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome111', 'firefox111', 'safari16.4'],
  outdir: join(clientOut, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  legalComments: 'none',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [serverCodeStaysOnServer, sonnerWithoutStyleInjection],
  logLevel: 'warning'
}

/**
 * The server bundle holds every package it runs, so start-up reads one file
 * instead of resolving and compiling some five hundred modules (about half of
 * the time to readiness). Left out, and imported only when asked for:
 * development tools, and OpenTelemetry's SDK (src/server/observability/tracing.ts), which
 * would otherwise be parsed at every start for a feature that is off unless
 * configured. Its API stays in: prom-client requires that no-op facade at
 * start-up, and the SDK's own copy (the same version) shares its global state.
 */
const { dependencies, devDependencies } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))
const TRACING_PACKAGES = Object.keys(dependencies).filter((name) => (name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api') || name === '@fastify/otel')
const SERVER_EXTERNAL = [...Object.keys(devDependencies), ...TRACING_PACKAGES].flatMap((name) => [name, `${name}/*`])

/**
 * The server's output directory holds CommonJS (its own package.json says
 * so): V8 caches the compiled code of a script, not of an ES module, and
 * main.js starts the bundle from that cache (docs/decisions/start-up.md).
 */
const commonJsPackage = {
  name: 'commonjs-package',
  setup (build) {
    build.onEnd(async () => {
      await mkdir(build.initialOptions.outdir, { recursive: true })
      await writeFile(join(build.initialOptions.outdir, 'package.json'), '{ "type": "commonjs" }\n')
    })
  }
}

/**
 * React's build is chosen here, not by NODE_ENV at run time: development for
 * `npm run dev`, production otherwise. main.js is the launcher, server.js the bundle.
 */
export const serverOptions = (mode) => ({
  entryPoints: { main: 'src/server/main.ts', server: 'src/server/serve.ts' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outdir: serverOut,
  external: SERVER_EXTERNAL,
  define: { 'process.env.NODE_ENV': JSON.stringify(mode), 'import.meta.url': 'importMetaUrl' },
  // import() of a package kept outside becomes a require() when called: a script compiled from a code cache cannot import().
  supported: { 'dynamic-import': false },
  // Strict, as the ES modules it is built from are.
  banner: { js: "'use strict'; const importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  sourcemap: 'linked',
  jsx: 'automatic',
  metafile: true,
  plugins: [reactRendererWithoutAsyncHooks(mode), commonJsPackage],
  logLevel: 'warning'
})

/** The server bundle alone, in React's `mode` build; tests build the development one beside the production one. */
export const buildServer = ({ mode, outdir = serverOut }) => esbuild.build({ ...serverOptions(mode), outdir })

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
export function initialOutputs (metafile, entryPoint = 'src/client/entry.tsx') {
  const entry = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === entryPoint)?.[0]
  if (!entry) throw new Error(`the build produced no output for ${entryPoint}`)
  return withStaticImports(metafile, entry)
}

/**
 * The shell as one file. esbuild gives what the entry shares with chunks
 * loaded later (React, its JSX runtime, esbuild's helpers) chunks of their
 * own, which the entry imports at once. Compressed one by one they cost about
 * 0.9 KiB of gzip more than together: React's code compresses against
 * react-dom's. So a second esbuild pass over the output bundles them into the
 * entry, which exports what the later chunks took from them, and those import
 * it from the entry instead. The entry therefore must not await at its top
 * level: a page chunk it awaited would wait for the entry in turn.
 * @param {import('esbuild').Metafile} metafile the first pass's
 * @param {Pick<import('esbuild').BuildOptions, 'target' | 'sourcemap'>} options the first pass's
 * @returns {Promise<import('esbuild').Metafile>} the metafile of the folded output
 */
export async function foldIntoEntry (metafile, { target, sourcemap }, entryPoint = 'src/client/entry.tsx') {
  const [entry = '', ...folded] = initialOutputs(metafile, entryPoint)
  if (folded.length === 0) return metafile
  const outdir = join(root, dirname(entry))
  const fileOf = (output) => join(root, output)
  const entryFile = fileOf(entry)
  /** Each folded chunk's exports, under names of their own in the entry: [chunk's name, entry's name]. */
  const exported = new Map(folded.map((chunk, index) => [fileOf(chunk), (metafile.outputs[chunk]?.exports ?? []).map((name) => [name, `f${index}_${name}`])]))
  const exportList = (file, [from, to]) => exported.get(file).map((names) => `${names[from]} as ${names[to]}`).join(', ')
  const fromEntry = `./${relative(outdir, entryFile)}`
  const fold = {
    name: 'fold-into-entry',
    setup (build) {
      build.onResolve({ filter: /^\.\.?\// }, ({ path, importer, namespace }) => {
        const file = namespace === 'file' ? resolve(dirname(importer), path) : null
        if (!file || !exported.has(file)) return { path, external: true }
        const intoEntry = importer === entryFile || exported.has(importer)
        // Named relative to the output, as its source map shows it.
        return intoEntry ? { path: file } : { path: relative(outdir, file), namespace: 'exported-by-entry' }
      })
      build.onLoad({ filter: /.*/, namespace: 'exported-by-entry' }, ({ path }) => ({
        contents: `export { ${exportList(join(outdir, path), [1, 0])} } from ${JSON.stringify(fromEntry)}`,
        resolveDir: outdir,
        loader: 'js'
      }))
      // Before the source map's comment, which must stay last for esbuild to read the first pass's map.
      build.onLoad({ filter: /.*/ }, async ({ path }) => {
        if (path !== entryFile) return undefined
        const code = await readFile(path, 'utf8')
        const reexports = [...exported.keys()].map((chunk) => `export { ${exportList(chunk, [0, 1])} } from ${JSON.stringify(`./${relative(outdir, chunk)}`)};\n`).join('')
        const comment = code.lastIndexOf('//# sourceMappingURL=')
        const end = comment === -1 ? code.length : comment
        return { contents: `${code.slice(0, end)}\n${reexports}${code.slice(end)}`, loader: 'js' }
      })
    }
  }
  const bundle = (outputs, options) => esbuild.build({
    entryPoints: outputs.map(fileOf),
    bundle: true,
    format: 'esm',
    target,
    minify: true,
    legalComments: 'none',
    sourcemap,
    outdir,
    outbase: outdir,
    entryNames: '[dir]/[name]',
    allowOverwrite: true,
    metafile: true,
    plugins: [fold],
    logLevel: 'warning',
    ...options
  })
  const later = Object.keys(metafile.outputs).filter((output) => output.endsWith('.js') && output !== entry && !folded.includes(output))
  const results = await Promise.all([
    // Said here, as the page would just never hydrate, with nothing in the console.
    bundle([entry], { supported: { 'top-level-await': false }, logLevel: 'silent' }).catch((/** @type {esbuild.BuildFailure} */ failure) => {
      if (!failure.errors?.some(({ text }) => text.startsWith('Top-level await'))) throw failure
      throw new Error(`${entryPoint} (or a module it imports) awaits at its top level: chunks loaded later import React from the entry, so a page chunk it awaited would wait for it in turn, and the page never hydrate`)
    }),
    bundle(later)
  ])
  await Promise.all(folded.flatMap((chunk) => [rm(fileOf(chunk)), rm(`${fileOf(chunk)}.map`, { force: true })]))

  const foldedFiles = new Set(folded.flatMap((chunk) => [chunk, `${chunk}.map`]))
  const distinct = (imports) => [...new Map(imports.map((imported) => [`${imported.kind} ${imported.path}`, imported])).values()]
  /** @type {import('esbuild').Metafile['outputs']} */
  const outputs = {}
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (foldedFiles.has(file)) continue
    if (file !== entry) {
      outputs[file] = { ...output, imports: distinct(output.imports.map((imported) => folded.includes(imported.path) ? { ...imported, path: entry } : imported)) }
      continue
    }
    const parts = [output, ...folded.map((chunk) => metafile.outputs[chunk])]
    outputs[file] = {
      ...output,
      imports: distinct(parts.flatMap((part) => part.imports).filter((imported) => !folded.includes(imported.path))),
      inputs: Object.assign({}, ...parts.map((part) => part.inputs)),
      exports: [...exported.values()].flatMap((names) => names.map(([, name]) => name))
    }
  }
  for (const [file, output] of results.flatMap((result) => Object.entries(result.metafile.outputs))) {
    if (outputs[file]) outputs[file].bytes = output.bytes
  }
  return { ...metafile, outputs }
}

/**
 * Module-level names mangled and two compress passes: terser takes off what
 * esbuild, minifying module by module, leaves. Statements stay apart rather
 * than joined by commas, which gzip compresses less well.
 */
const TERSER_OPTIONS = { module: true, compress: { passes: 2, sequences: false }, format: { comments: false } }

/**
 * terser over each script, after esbuild: about 1 KiB less gzip for the
 * shell, as it sees across the modules. It reads esbuild's source map and
 * writes one that still leads to the sources.
 * @param {import('esbuild').Metafile} metafile
 * @returns {Promise<import('esbuild').Metafile>} the same, with the scripts' new sizes
 */
export async function minifyScripts (metafile) {
  const outputs = { ...metafile.outputs }
  for (const output of Object.keys(outputs).filter((file) => file.endsWith('.js'))) {
    const file = join(root, output)
    const name = basename(file)
    const map = outputs[`${output}.map`] ? await readFile(`${file}.map`, 'utf8') : null
    const result = await minify({ [name]: await readFile(file, 'utf8') }, {
      ...TERSER_OPTIONS,
      sourceMap: map === null ? false : { content: map, url: `${name}.map`, includeSources: true }
    })
    await writeFile(file, result.code)
    outputs[output] = { ...outputs[output], bytes: Buffer.byteLength(result.code) }
    if (map === null) continue
    await writeFile(`${file}.map`, result.map)
    outputs[`${output}.map`] = { ...outputs[`${output}.map`], bytes: Buffer.byteLength(result.map) }
  }
  return { ...metafile, outputs }
}

/**
 * The browser files as they ship: esbuild's build, the shell folded into one
 * file, terser after. `npm run dev` uses esbuild's alone.
 * @param {import('esbuild').BuildOptions} options
 * @returns {Promise<import('esbuild').Metafile>}
 */
export async function buildBrowserFiles (options) {
  const { metafile } = await esbuild.build({ ...options, metafile: true })
  return minifyScripts(await foldIntoEntry(metafile, options))
}

const PAGE_MODULE = /^src\/ui\/pages\/([\w-]+)\.tsx$/

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

/** The asset manifest the server writes its <script>, <link rel="modulepreload"> and stylesheet tags from. */
export function manifestFrom (metafile) {
  const toUrl = (file) => '/' + relative(clientOut, join(root, file)).split('\\').join('/')
  const styles = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === 'src/ui/styles.css')
  if (!styles) throw new Error('the build produced no stylesheet')
  const [entry, ...preloads] = initialOutputs(metafile).map(toUrl)
  const pages = Object.fromEntries(Object.entries(pageOutputs(metafile)).map(([id, files]) => [id, files.map(toUrl)]))
  return { entry, styles: [toUrl(styles[0])], preloads, pages }
}

const COMPRESSIBLE = /\.(js|css|html|svg|json|webmanifest|ico|txt|map)$/
/** What a visitor downloads first: worth zopfli's slower, smaller gzip (same format, about 3 % fewer bytes). */
const SHIPPED_CODE = /\.(js|css)$/

/** The gzip a browser receives for a script or stylesheet: zopfli's, decoded by any gzip client. */
export const gzipForServing = (bytes) => zopfli.gzipAsync(bytes, { numiterations: 15 })

/** Writes .br and .gz beside each compressible file so they are served without per-request work. */
async function precompress (dir) {
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue
    const file = join(entry.parentPath ?? entry.path, entry.name)
    await Promise.all([
      pipeline(createReadStream(file), createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }), createWriteStream(`${file}.br`)),
      SHIPPED_CODE.test(entry.name)
        ? readFile(file).then(gzipForServing).then((gzip) => writeFile(`${file}.gz`, gzip))
        : pipeline(createReadStream(file), createGzip({ level: 9 }), createWriteStream(`${file}.gz`))
    ])
  }
}

/**
 * Raw bytes, and gzip and brotli bytes as served (the precompressed files),
 * of the JavaScript that first paint and hydration wait for: the shell and
 * the heaviest page's own chunks (a visitor loads one page's), and of the
 * tracker's chunk.
 */
export async function sizesOf (manifest) {
  const measure = async (urls) => {
    const total = { raw: 0, gzip: 0, brotli: 0 }
    for (const url of urls) {
      const file = join(clientOut, url)
      total.raw += (await stat(file)).size
      total.gzip += (await stat(`${file}.gz`)).size
      total.brotli += (await stat(`${file}.br`)).size
    }
    return total
  }
  const shell = await measure([manifest.entry, ...manifest.preloads])
  let heaviestPage = { id: null, raw: 0, gzip: 0, brotli: 0 }
  for (const [id, urls] of Object.entries(manifest.pages ?? {})) {
    const page = await measure(urls)
    if (page.gzip > heaviestPage.gzip) heaviestPage = { id, ...page }
  }
  const initial = { raw: shell.raw + heaviestPage.raw, gzip: shell.gzip + heaviestPage.gzip, brotli: shell.brotli + heaviestPage.brotli }
  const trackerChunks = (await readdir(join(clientOut, 'assets'))).map((file) => `/assets/${file}`).filter(isTrackerChunk)
  return { initial, shell, heaviestPage, tracker: await measure(trackerChunks), trackerChunks }
}

/** The chunk of src/client/tracker.ts (named after it by entryNames): the session-recording tracker. */
export const isTrackerChunk = (url) => /\/tracker-[^/]+\.js$/.test(url)

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`

async function buildClient () {
  await rm(clientOut, { recursive: true, force: true })
  await mkdir(clientOut, { recursive: true })
  await cp(join(root, 'static'), clientOut, { recursive: true })
  const metafile = await buildBrowserFiles(clientOptions)
  const manifest = manifestFrom(metafile)
  await writeFile(join(dist, 'client-meta.json'), JSON.stringify(metafile))
  await precompress(clientOut)
  const sizes = await sizesOf(manifest)
  log(`initial JavaScript: ${kib(sizes.initial.raw)} raw, ${kib(sizes.initial.gzip)} gzip, ${kib(sizes.initial.brotli)} brotli (shell ${kib(sizes.shell.gzip)} + heaviest page "${sizes.heaviestPage.id}" ${kib(sizes.heaviestPage.gzip)} gzip)`)
  log(`tracker chunk:      ${kib(sizes.tracker.raw)} raw, ${kib(sizes.tracker.gzip)} gzip, ${kib(sizes.tracker.brotli)} brotli (${sizes.trackerChunks.join(', ') || 'none'}; loaded after hydration)`)
  return manifest
}

async function buildAll () {
  const started = Date.now()
  await mkdir(dist, { recursive: true })
  const [manifest, server] = await Promise.all([buildClient(), buildServer({ mode: 'production' })])
  log(`server bundle:      ${kib(server.metafile.outputs['dist/server/server.js'].bytes)}`)
  // Run by the Node that builds: the image's build and runtime stages share one.
  execFileSync(process.execPath, [join(serverOut, 'main.js'), '--write-code-cache'], { stdio: 'inherit' })
  // Written last: its presence and time mark a complete build (see isStale).
  await writeFile(manifestPath, JSON.stringify(manifest, null, 2))
  log(`built in ${Date.now() - started} ms`)
}

async function newestMtime (path) {
  const info = await stat(path).catch(() => null)
  if (!info) return 0
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    const file = await stat(join(entry.parentPath ?? entry.path, entry.name)).catch(() => null)
    if (file && file.mtimeMs > newest) newest = file.mtimeMs
  }
  return newest
}

async function isStale () {
  const built = await stat(manifestPath).catch(() => null)
  if (!built) return true
  // npm run dev's build is never the one to serve or test.
  if (JSON.parse(await readFile(manifestPath, 'utf8')).mode === 'development') return true
  const sources = await Promise.all(SOURCES.map((source) => newestMtime(join(root, source))))
  return Math.max(...sources) > built.mtimeMs
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (!args.has('--if-stale') || await isStale()) await buildAll()
  } catch (error) {
    console.error(error.message)
    process.exitCode = 1
  }
}
