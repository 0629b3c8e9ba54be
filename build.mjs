// Builds the server bundle and the browser bundle with esbuild.
//   node build.mjs             build once
//   node build.mjs --if-stale  build only when dist/ is missing or older than the sources
//   node build.mjs --watch     the development loop (npm run dev): rebuild on change, restart the server, reload open pages
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream, watch as watchFiles } from 'node:fs'
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { setPriority } from 'node:os'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { createInterface } from 'node:readline'
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

/** Bundled into the server with the build's mode, so the server's React is one copy, chosen at build time. */
const BUNDLED_PACKAGES = ['react', 'react-dom', 'sonner']
const { dependencies } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))

/** React's build is chosen here, not by NODE_ENV at run time: development for `npm run dev`, production otherwise. */
const serverOptions = (mode) => ({
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

/** The client entry's output and every chunk it imports statically, transitively: what hydration waits for. */
export function initialOutputs (metafile) {
  const entry = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === 'src/client/entry.tsx')?.[0]
  if (!entry) throw new Error('the build produced no client entry')
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
function manifestFrom (metafile) {
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

// ---- npm run dev ----------------------------------------------------------
// Rebuilds both bundles together on every change under src/ and static/ and
// restarts the server once their output changed; a failed build keeps the
// last good one serving and is reported to it (the overlay). The server
// (src/server/dev/) reloads open pages when it restarts. `tsc --watch` runs
// beside it, at a lower priority, and never holds a rebuild back.

/** `npm run dev`'s browser bundle: React's development build, readable, so errors say what differs. */
const developmentClientOptions = () => ({
  ...clientOptions,
  minify: false,
  define: { ...clientOptions.define, 'process.env.NODE_ENV': '"development"' }
})

const WATCHED = ['src', 'static']
/** Beside the production server's folder, never in it; two levels down, so it finds dist/ as that one does. */
const developmentServerOut = join(dist, 'development-server')

/** Each message once: a file both bundles include fails both builds alike. */
const distinctMessages = (messages) => [...new Map(messages.map((message) => [JSON.stringify([message.text, message.location]), message])).values()]

/** Prints esbuild's messages as esbuild would, once each. */
async function printMessages (messages, kind) {
  if (messages.length === 0) return
  const formatted = await esbuild.formatMessages(distinctMessages(messages), { kind, color: Boolean(process.stderr.isTTY) })
  process.stderr.write(formatted.join(''))
}

/** esbuild's errors as the server's overlay shows them (src/server/dev/overlay.ts). */
const reportedErrors = (errors) => distinctMessages(errors).map(({ text, location }) => ({
  file: location?.file ?? null,
  line: location?.line ?? null,
  column: location?.column ?? null,
  lineText: location?.lineText ?? null,
  message: text
}))

/**
 * The development server, told how each build went over IPC. A new build's
 * server starts while the previous one still serves, and takes over the port
 * once it is ready (src/server/dev/dev-tools.ts), in a process started ahead
 * of the build that has loaded the server's packages already
 * (src/server/dev/standby.ts): a restart costs little more than the server's
 * own code, and a server that cannot start leaves the previous one serving.
 * Each is in its own process group, so that Ctrl-C reaches only this loop,
 * which stops them once; if this loop dies, they see their IPC channel close
 * and stop.
 */
function developmentServer () {
  let current = null
  let standby = null
  // One pair of secrets for the whole loop, unless set: cookies and forms outlive a restart.
  const env = {
    NODE_ENV: 'development',
    LOG_PRETTY: 'true',
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    HONEYPOT_SECRET: randomBytes(32).toString('base64url'),
    ...process.env
  }
  const stopProcess = async (server) => {
    if (!server || server.exitCode !== null || server.signalCode !== null) return
    const exited = new Promise((resolve) => server.once('exit', resolve))
    server.kill('SIGTERM')
    const force = setTimeout(() => server.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(force)
  }
  const startStandby = (packages) => {
    const waiting = spawn(process.execPath, ['--enable-source-maps', join(developmentServerOut, 'standby.js')], {
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env
    })
    waiting.send({ type: 'preload', packages })
    return waiting
  }
  return {
    running: () => current !== null,
    /** Swaps in a server of the build just written; false when it stopped before it was ready. */
    async restart (packages) {
      const waiting = standby?.connected ? standby : startStandby(packages)
      standby = null
      waiting.send({ type: 'start', entry: join(developmentServerOut, 'main.js') })
      const ready = await new Promise((resolve) => {
        waiting.on('message', (message) => { if (message?.type === 'ready') resolve(true) })
        waiting.once('exit', () => resolve(false))
      })
      standby = startStandby(packages)
      if (!ready) return false
      waiting.once('exit', (code, signal) => {
        if (current !== waiting) return
        current = null
        log(`the server stopped (${signal ?? `exit code ${code}`}); the next good build starts it again`)
      })
      const previous = current
      current = waiting
      await stopProcess(previous)
      waiting.send({ type: 'listen' })
      return true
    },
    async stop () {
      const running = [current, standby]
      current = standby = null
      await Promise.all(running.map(stopProcess))
    },
    report (errors) {
      if (current?.connected) current.send({ type: 'build-status', errors })
    }
  }
}

/** The packages a server bundle imports at run time: what a standby server loads ahead. */
const serverPackages = (metafile) => Object.values(metafile.outputs).flatMap((output) => output.imports).filter((imported) => imported.external).map((imported) => imported.path)

/**
 * `tsc --watch` beside the build: type errors show in the terminal as files
 * are saved, and never block a rebuild. It leaves when its IPC channel to
 * this loop closes, however the loop ended.
 */
function startTypeChecker () {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  // tsc reads its arguments from the third on: "tsc" stands in for a script name.
  const checker = spawn(process.execPath, ['-e', `process.on('disconnect', () => process.exit(0)); require(${JSON.stringify(tsc)})`, 'tsc', '--noEmit', '--watch', '--preserveWatchOutput', ...(process.stdout.isTTY ? ['--pretty'] : [])], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc']
  })
  // The rebuild and the server come first on a busy machine.
  try { setPriority(checker.pid, 19) } catch {}
  createInterface({ input: checker.stdout }).on('line', (line) => {
    if (line.trim() && !/Starting (incremental )?compilation|File change detected/.test(line)) console.log(line)
  })
  return checker
}

/**
 * Calls `onChange` for any change under `roots`. Each folder is watched, not
 * each file (an editor that saves by renaming replaces the file, and a
 * recursive watch on Linux loses it then); folders made later are watched too.
 */
function watchTree (roots, onChange) {
  const watchers = new Map()
  const watchFolder = (folder) => {
    if (watchers.has(folder)) return
    const watcher = watchFiles(folder, () => {
      onChange()
      void scan()
    })
    // A removed folder's watch ends with an error.
    watcher.on('error', () => {
      watcher.close()
      watchers.delete(folder)
    })
    watchers.set(folder, watcher)
  }
  const scan = async () => {
    for (const rootFolder of roots) {
      watchFolder(rootFolder)
      for (const entry of await readdir(rootFolder, { withFileTypes: true, recursive: true }).catch(() => [])) {
        if (entry.isDirectory()) watchFolder(join(entry.parentPath ?? entry.path, entry.name))
      }
    }
  }
  void scan()
  return { close: () => { for (const watcher of watchers.values()) watcher.close() } }
}

/** Writes a build's files: only once both bundles built, so a failure leaves the last good build whole. */
async function writeOutputs (outputFiles) {
  for (const file of outputFiles) {
    await mkdir(dirname(file.path), { recursive: true })
    await writeFile(file.path, file.contents)
  }
}

/** Deletes the browser files of earlier builds, which no page asks for any more. */
async function removeOldOutputs (outputFiles) {
  const current = new Set(outputFiles.map((file) => file.path))
  const assets = join(clientOut, 'assets')
  for (const file of await readdir(assets)) {
    if (!current.has(join(assets, file))) await rm(join(assets, file), { force: true })
  }
}

async function watchAndServe () {
  const server = developmentServer()
  const typeChecker = startTypeChecker()
  let contexts = []
  let watcher = null
  let stopping = false
  const stop = async (reason) => {
    // A second signal does not wait.
    if (stopping) process.exit(1)
    stopping = true
    log(`stopping (${reason})`)
    watcher?.close()
    typeChecker.kill()
    await Promise.allSettled([server.stop(), ...contexts.map((context) => context.dispose())])
    process.exit(0)
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  // npm runs this under a shell, which dies on an editor's SIGTERM without passing it on: a new parent means ours is gone.
  const parent = process.ppid
  setInterval(() => { if (process.ppid !== parent) stop('its parent exited') }, 500).unref()

  // Whatever was built before is not this loop's: `npm start` must not take it for a production build.
  await Promise.all([rm(clientOut, { recursive: true, force: true }), rm(manifestPath, { force: true })])
  // Written by hand (writeOutputs): an esbuild context deletes its last output when a rebuild fails.
  const development = serverOptions('development')
  // Silent: their messages are printed once for both (printMessages).
  contexts = await Promise.all([
    esbuild.context({ ...developmentClientOptions(), write: false, logLevel: 'silent' }),
    esbuild.context({ ...development, outdir: developmentServerOut, entryPoints: { ...development.entryPoints, standby: 'src/server/dev/standby.ts' }, write: false, logLevel: 'silent' })
  ])
  // What the running server was built from: an unchanged rebuild restarts nothing.
  let served = null
  let failing = false

  const rebuildOnce = async () => {
    const started = Date.now()
    await cp(join(root, 'static'), clientOut, { recursive: true })
    const [client, bundle] = await Promise.allSettled(contexts.map((context) => context.rebuild()))
    const results = [client, bundle].map((result) => result.status === 'fulfilled' ? result.value : result.reason)
    // A failure that is not esbuild's (it has no errors list) is still one to show.
    const errors = results.flatMap((result) => result.errors ?? [{ text: String(result.message ?? result) }])
    await printMessages(results.flatMap((result) => result.warnings ?? []), 'warning')
    if (errors.length > 0) {
      failing = true
      await printMessages(errors, 'error')
      server.report(reportedErrors(errors))
      log(`the build failed (above); ${server.running() ? 'the last good build is still served' : 'nothing is served until it builds'}`)
      return
    }
    const outputFiles = [...client.value.outputFiles, ...bundle.value.outputFiles]
    const output = outputFiles.map((file) => `${file.path} ${file.hash}`).join('\n')
    if (output === served && server.running()) {
      if (failing) server.report([])
      failing = false
      return
    }
    await writeOutputs(outputFiles)
    const manifest = manifestFrom(client.value.metafile)
    await writeFile(manifestPath, JSON.stringify({ ...manifest, mode: 'development' }, null, 2))
    const built = Date.now()
    if (!await server.restart([...new Set(serverPackages(bundle.value.metafile))])) {
      failing = true
      server.report([{ file: null, line: null, column: null, lineText: null, message: 'The server of the new build stopped before it could listen: its error is in the terminal.' }])
      log('the new server did not start (above); the last good build is still served')
      return
    }
    failing = false
    served = output
    await removeOldOutputs(client.value.outputFiles)
    log(`built in ${built - started} ms, served by a new server ${Date.now() - built} ms later: open pages reload`)
  }
  const rebuild = () => rebuildOnce().catch((error) => console.error(`the build could not run: ${error.stack ?? error}`))

  // One rebuild at a time; changes made meanwhile are built next, together.
  let running = rebuild()
  let queued = false
  let timer = null
  const schedule = () => {
    clearTimeout(timer)
    // An editor's save is several events: build once they have settled.
    timer = setTimeout(() => {
      if (queued) return
      queued = true
      running = running.then(() => {
        queued = false
        return rebuild()
      })
    }, 30)
  }
  watcher = watchTree(WATCHED.map((folder) => join(root, folder)), schedule)
  await running
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
