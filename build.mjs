// Builds the server bundle and the browser bundle with esbuild.
//   node build.mjs             build once
//   node build.mjs --if-stale  build only when dist/ is missing or older than the sources
// The development loop (npm run dev) is dev-loop.mjs.
import { createReadStream, createWriteStream } from 'node:fs'
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { constants, createBrotliCompress, createGzip, gzipSync, brotliCompressSync } from 'node:zlib'
import * as esbuild from 'esbuild'

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
// `react-dom/server` would also bring the legacy renderer: only the streaming one is used.
const REACT_DOM = dirname(createRequire(import.meta.url).resolve('react-dom/package.json'))
const reactRendererWithoutAsyncHooks = (mode) => ({
  name: 'react-renderer-without-async-hooks',
  setup (build) {
    build.onResolve({ filter: /^react-dom\/server$/ }, () => ({ path: join(REACT_DOM, 'cjs', `react-dom-server.node.${mode}.js`) }))
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

/** Bundled into the server with the build's mode, so the server's React is one copy, chosen at build time. */
const BUNDLED_PACKAGES = ['react', 'react-dom', 'sonner']
const { dependencies } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))

/** React's build is chosen here, not by NODE_ENV at run time: development for `npm run dev`, production otherwise. */
export const serverOptions = (mode) => ({
  entryPoints: { main: 'src/server/main.ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: serverOut,
  external: Object.keys(dependencies).filter((name) => !BUNDLED_PACKAGES.includes(name)).flatMap((name) => [name, `${name}/*`]),
  define: { 'process.env.NODE_ENV': JSON.stringify(mode) },
  // The bundled CommonJS requires Node's modules at run time.
  banner: { js: "import { createRequire as createRequireForBundledCommonJS } from 'node:module'; const require = createRequireForBundledCommonJS(import.meta.url);" },
  sourcemap: 'linked',
  jsx: 'automatic',
  metafile: true,
  plugins: [reactRendererWithoutAsyncHooks(mode)],
  logLevel: 'warning'
})

/** The server bundle alone, in React's `mode` build; tests build the development one beside the production one. */
export const buildServer = ({ mode, outdir = serverOut }) => esbuild.build({ ...serverOptions(mode), outdir })

/** An entry's output and every chunk it imports statically, transitively: what hydration waits for. */
export function initialOutputs (metafile, entryPoint = 'src/client/entry.tsx') {
  const entry = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === entryPoint)?.[0]
  if (!entry) throw new Error(`the build produced no output for ${entryPoint}`)
  const found = new Set([entry])
  const visit = (file) => {
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || found.has(imported.path)) continue
      found.add(imported.path)
      visit(imported.path)
    }
  }
  visit(entry)
  return [...found]
}

/** The asset manifest the server writes its <script>, <link rel="modulepreload"> and stylesheet tags from. */
export function manifestFrom (metafile) {
  const toUrl = (file) => '/' + relative(clientOut, join(root, file)).split('\\').join('/')
  const styles = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === 'src/ui/styles.css')
  if (!styles) throw new Error('the build produced no stylesheet')
  const [entry, ...preloads] = initialOutputs(metafile).map(toUrl)
  return { entry, styles: [toUrl(styles[0])], preloads }
}

const COMPRESSIBLE = /\.(js|css|html|svg|json|webmanifest|ico|txt|map)$/

/** Writes .br and .gz beside each compressible file so they are served without per-request work. */
async function precompress (dir) {
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue
    const file = join(entry.parentPath ?? entry.path, entry.name)
    await Promise.all([
      pipeline(createReadStream(file), createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }), createWriteStream(`${file}.br`)),
      pipeline(createReadStream(file), createGzip({ level: 9 }), createWriteStream(`${file}.gz`))
    ])
  }
}

/** Raw, gzip and brotli bytes of the JavaScript that first paint and hydration wait for, and of the tracker's chunk. */
export async function sizesOf (manifest) {
  const measure = async (urls) => {
    const total = { raw: 0, gzip: 0, brotli: 0 }
    for (const url of urls) {
      const bytes = await readFile(join(clientOut, url))
      total.raw += bytes.length
      total.gzip += gzipSync(bytes, { level: 9 }).length
      total.brotli += brotliCompressSync(bytes).length
    }
    return total
  }
  const trackerChunks = (await readdir(join(clientOut, 'assets'))).map((file) => `/assets/${file}`).filter(isTrackerChunk)
  return { initial: await measure([manifest.entry, ...manifest.preloads]), tracker: await measure(trackerChunks), trackerChunks }
}

/** The chunk of src/client/tracker.ts (named after it by entryNames): the session-recording tracker. */
export const isTrackerChunk = (url) => /\/tracker-[^/]+\.js$/.test(url)

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`

async function buildClient () {
  await rm(clientOut, { recursive: true, force: true })
  await mkdir(clientOut, { recursive: true })
  await cp(join(root, 'static'), clientOut, { recursive: true })
  const result = await esbuild.build(clientOptions)
  const manifest = manifestFrom(result.metafile)
  await writeFile(join(dist, 'client-meta.json'), JSON.stringify(result.metafile))
  await precompress(clientOut)
  const sizes = await sizesOf(manifest)
  log(`initial JavaScript: ${kib(sizes.initial.raw)} raw, ${kib(sizes.initial.gzip)} gzip, ${kib(sizes.initial.brotli)} brotli`)
  log(`tracker chunk:      ${kib(sizes.tracker.raw)} raw, ${kib(sizes.tracker.gzip)} gzip, ${kib(sizes.tracker.brotli)} brotli (${sizes.trackerChunks.join(', ') || 'none'}; loaded after hydration)`)
  return manifest
}

async function buildAll () {
  const started = Date.now()
  await mkdir(dist, { recursive: true })
  const [manifest, server] = await Promise.all([buildClient(), buildServer({ mode: 'production' })])
  log(`server bundle:      ${kib(server.metafile.outputs['dist/server/main.js'].bytes)}`)
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
