// Builds the server bundle and the browser bundle with esbuild.
//   node build.mjs             build once
//   node build.mjs --if-stale  build only when dist/ is missing or older than the sources
//   node build.mjs --watch     rebuild on change and (re)start the server (npm run dev)
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream } from 'node:fs'
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { constants, createBrotliCompress, createGzip, gzipSync, brotliCompressSync } from 'node:zlib'
import * as esbuild from 'esbuild'

const root = dirname(fileURLToPath(import.meta.url))
const dist = join(root, 'dist')
const clientOut = join(dist, 'client')
const serverOut = join(dist, 'server')
export const manifestPath = join(dist, 'manifest.json')

const args = new Set(process.argv.slice(2))
const watch = args.has('--watch')
const log = (...parts) => { if (!args.has('--quiet')) console.log(...parts) }

/** Sources whose change makes a build stale. */
const SOURCES = ['src', 'static', 'build.mjs', 'package.json', 'package-lock.json']

// sonner injects its stylesheet into <head> at import time, which the nonce-based
// CSP refuses; its styles ship in our hashed stylesheet instead (src/ui/styles.css).
const sonnerWithoutStyleInjection = {
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
// (src/server/render-request-storage.ts says what it gets instead, and why).
// So the renderer is bundled rather than left external, and its
// node:async_hooks resolves to that storage.
const REACT_DOM_SERVER = createRequire(import.meta.url).resolve('react-dom/server.node')
const reactRendererWithoutAsyncHooks = {
  name: 'react-renderer-without-async-hooks',
  setup (build) {
    build.onResolve({ filter: /^react-dom\/server$/ }, () => ({ path: REACT_DOM_SERVER }))
    build.onResolve({ filter: /^(node:)?async_hooks$/ }, ({ importer }) => {
      if (!/[\\/]node_modules[\\/]react-dom[\\/]/.test(importer)) return undefined
      return { path: join(root, 'src', 'server', 'render-request-storage.ts') }
    })
  }
}

// The browser must never receive server code: fail the build when it tries.
const serverCodeStaysOnServer = {
  name: 'server-code-stays-on-server',
  setup (build) {
    build.onResolve({ filter: /.*/ }, ({ path, importer }) => {
      if (!importer) return undefined
      const fromServer = /[\\/]src[\\/]server[\\/]/
      if (path.startsWith('node:') || (fromServer.test(join(dirname(importer), path)) && !fromServer.test(importer))) {
        return { errors: [{ text: `"${path}" is server-only and cannot be imported from browser code (${relative(root, importer)})` }] }
      }
      return undefined
    })
  }
}

const clientOptions = {
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

const serverOptions = {
  entryPoints: { main: 'src/server/main.ts' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: serverOut,
  packages: 'external',
  // The bundled renderer is CommonJS and requires its packages (react, react-dom) at run time.
  banner: { js: "import { createRequire as createRequireForBundledCommonJS } from 'node:module'; const require = createRequireForBundledCommonJS(import.meta.url);" },
  sourcemap: 'linked',
  jsx: 'automatic',
  metafile: true,
  plugins: [reactRendererWithoutAsyncHooks],
  logLevel: 'warning'
}

/** The asset manifest the server writes its <script>, <link rel="modulepreload"> and stylesheet tags from. */
function manifestFrom (metafile) {
  const toUrl = (file) => '/' + relative(clientOut, join(root, file)).split('\\').join('/')
  const outputs = Object.entries(metafile.outputs)
  const entry = outputs.find(([, output]) => output.entryPoint === 'src/client/entry.tsx')
  const styles = outputs.find(([, output]) => output.entryPoint === 'src/ui/styles.css')
  if (!entry || !styles) throw new Error('the build produced no client entry or stylesheet')
  // Everything the entry imports statically, transitively, is needed before hydration.
  const initial = new Set()
  const visit = (file) => {
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || initial.has(imported.path)) continue
      initial.add(imported.path)
      visit(imported.path)
    }
  }
  visit(entry[0])
  const preloads = [...initial].map(toUrl)
  // Dynamic imports (the tracker) are entry points to esbuild too: lazy is whatever else is JavaScript.
  const lazy = outputs
    .filter(([file]) => file.endsWith('.js') && file !== entry[0] && !initial.has(file))
    .map(([file]) => toUrl(file))
  return { entry: toUrl(entry[0]), styles: [toUrl(styles[0])], preloads, lazy }
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

/** Raw, gzip and brotli bytes of the JavaScript that first paint and hydration wait for, and of the lazy chunks. */
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
  const tracker = manifest.lazy.filter(isTrackerChunk)
  return { initial: await measure([manifest.entry, ...manifest.preloads]), tracker: await measure(tracker), trackerChunks: tracker, lazy: await measure(manifest.lazy) }
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
  log(`lazy chunks:        ${kib(sizes.lazy.raw)} raw, ${kib(sizes.lazy.gzip)} gzip, ${kib(sizes.lazy.brotli)} brotli (${manifest.lazy.join(', ') || 'none'})`)
  return manifest
}

async function buildAll () {
  const started = Date.now()
  await mkdir(dist, { recursive: true })
  const [manifest] = await Promise.all([buildClient(), esbuild.build(serverOptions)])
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
  const sources = await Promise.all(SOURCES.map((source) => newestMtime(join(root, source))))
  return Math.max(...sources) > built.mtimeMs
}

async function watchAndServe () {
  let child = null
  const restart = () => {
    if (child) child.kill('SIGTERM')
    child = spawn(process.execPath, ['--enable-source-maps', join(serverOut, 'main.js')], {
      stdio: 'inherit',
      env: { NODE_ENV: 'development', LOG_PRETTY: 'true', ...process.env }
    })
  }
  const onRebuild = (what) => ({
    name: `restart-on-${what}`,
    setup (build) {
      build.onEnd(async (result) => {
        if (result.errors.length > 0) return
        if (what === 'client') await writeFile(manifestPath, JSON.stringify(manifestFrom(result.metafile), null, 2))
        log(`${what} rebuilt, restarting the server`)
        restart()
      })
    }
  })
  await buildAll()
  const clientContext = await esbuild.context({ ...clientOptions, plugins: [...clientOptions.plugins, onRebuild('client')] })
  const serverContext = await esbuild.context({ ...serverOptions, plugins: [...serverOptions.plugins, onRebuild('server')] })
  await Promise.all([clientContext.watch(), serverContext.watch()])
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (watch) await watchAndServe()
    else if (!args.has('--if-stale') || await isStale()) await buildAll()
  } catch (error) {
    console.error(error.message)
    process.exitCode = 1
  }
}
