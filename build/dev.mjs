// npm run dev: docs/decisions/development-loop.md; test/build/dev-loop.test.ts runs it end to end.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { setPriority } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import * as esbuild from 'esbuild'
import { clientOptions } from './client.mjs'
import { manifestFrom } from './manifest.mjs'
import { development, root } from './paths.mjs'
import { screenModules } from './screens.mjs'
import { serverOptions } from './server.mjs'

const log = (line) => console.log(line)
const { dir: out, clientOut, serverOut, manifestPath } = development
const STATIC = join(root, 'static')

/** esbuild watches only what a build reads and what a plugin names. */
const staticFiles = {
  name: 'static-files',
  setup (build) {
    build.onResolve({ filter: /^src\/client\/entry\.tsx$/ }, async ({ path, kind }) => {
      if (kind !== 'entry-point') return undefined
      const entries = await readdir(STATIC, { withFileTypes: true, recursive: true })
      const paths = (directories) => entries.filter((entry) => entry.isDirectory() === directories).map((entry) => join(entry.parentPath, entry.name))
      return { path: join(root, path), watchFiles: paths(false), watchDirs: [STATIC, ...paths(true)] }
    })
  }
}

const developmentClientOptions = {
  ...clientOptions,
  outdir: join(clientOut, 'assets'),
  minify: false,
  define: { ...clientOptions.define, 'process.env.NODE_ENV': '"development"' },
  plugins: [staticFiles, ...clientOptions.plugins]
}

/** Each message once: a file both builds include fails both alike. */
const distinct = (messages) => [...new Map(messages.map((message) => [JSON.stringify([message.text, message.location]), message])).values()]

const overlayErrors = (errors) => errors.map(({ text, location }) => ({
  file: location?.file ?? null, line: location?.line ?? null, column: location?.column ?? null, lineText: location?.lineText ?? null, message: text
}))

async function writeChanged (outputFiles) {
  let changed = false
  for (const file of outputFiles) {
    const current = await readFile(file.path).catch(() => null)
    if (current?.equals(file.contents)) continue
    await mkdir(dirname(file.path), { recursive: true })
    await writeFile(file.path, file.contents)
    changed = true
  }
  return changed
}

// Folders stay: Node's compile cache lives beside the server's files.
async function removeOthers (dir, outputFiles) {
  const current = new Set(outputFiles.map((file) => file.path))
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile() && !current.has(join(dir, entry.name))) await rm(join(dir, entry.name), { force: true })
  }
}

/** A process group of its own: Ctrl-C reaches the loop, which stops it once; it leaves when the loop's IPC channel closes. */
function developmentServer () {
  const env = {
    NODE_ENV: 'development',
    LOG_PRETTY: 'true',
    // One pair of secrets for the whole loop, unless set: cookies and forms outlive a restart.
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    HONEYPOT_SECRET: randomBytes(32).toString('base64url'),
    // No load shedding: a busy laptop (a type check, a first render of React's development build) is not an overload.
    LOAD_SHEDDING_DELAY_MS: '0',
    ...process.env
  }
  let current = null
  const stop = async () => {
    const server = current
    current = null
    if (!server || server.exitCode !== null || server.signalCode !== null) return
    const exited = new Promise((resolve) => server.once('exit', resolve))
    server.kill('SIGTERM')
    const force = setTimeout(() => server.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(force)
  }
  return {
    stop,
    async restart () {
      await stop()
      const server = spawn(process.execPath, [join(serverOut, 'main.js')], { detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env })
      server.once('exit', (code, signal) => {
        if (current !== server) return
        current = null
        log(`the server stopped (${signal ?? `exit code ${code}`}); the next good build starts it again`)
      })
      current = server
    },
    report (errors) {
      if (current?.connected) current.send({ type: 'build-status', errors })
    }
  }
}

/** Watches for a new parent: an IPC channel's 'disconnect' did not reach a busy tsc. */
function startTypeChecker () {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const leaveWithParent = `const parent = process.ppid; setInterval(() => { if (process.ppid !== parent) process.exit(0) }, 500).unref()`
  // tsc reads its arguments from the third on: "tsc" stands in for a script name.
  const checker = spawn(process.execPath, ['-e', `${leaveWithParent}; require(${JSON.stringify(tsc)})`, 'tsc', '--noEmit', '--watch', '--preserveWatchOutput', ...(process.stdout.isTTY ? ['--pretty'] : [])], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit']
  })
  try { setPriority(checker.pid, 19) } catch {}
  createInterface({ input: checker.stdout }).on('line', (line) => {
    if (line.trim() && !/Starting (incremental )?compilation|File change detected/.test(line)) console.log(line)
  })
  return checker
}

const server = developmentServer()
const typeChecker = startTypeChecker()
let contexts = []
let failing = false

/** Both anew: each context's watch polls on its own, and a page must reload once, onto builds of the same sources. */
async function publish () {
  const settled = await Promise.allSettled(contexts.map((context) => context.rebuild()))
  const [client, bundle] = settled.map((result) => result.status === 'fulfilled' ? result.value : result.reason)
  const errors = distinct([client, bundle].flatMap((result) => result.errors ?? [{ text: String(result.message ?? result) }]))
  const warnings = distinct([client, bundle].flatMap((result) => result.warnings ?? []))
  const color = Boolean(process.stderr.isTTY)
  if (warnings.length > 0) process.stderr.write((await esbuild.formatMessages(warnings, { kind: 'warning', color })).join(''))
  if (errors.length > 0) {
    failing = true
    process.stderr.write((await esbuild.formatMessages(errors, { kind: 'error', color })).join(''))
    server.report(overlayErrors(errors))
    log('the build failed (above); the last good build is still served')
    return
  }
  await cp(STATIC, clientOut, { recursive: true })
  const changed = await writeChanged([...client.outputFiles, ...bundle.outputFiles])
  if (!changed && failing) server.report([])
  failing = false
  if (!changed) return
  await writeFile(manifestPath, JSON.stringify(manifestFrom(client.metafile, await screenModules(), clientOut), null, 2))
  await server.restart()
  await Promise.all([removeOthers(join(clientOut, 'assets'), client.outputFiles), removeOthers(serverOut, bundle.outputFiles)])
  log('built: a new server starts, open pages reload')
}

let publishing = Promise.resolve()
let queued = false
let timer = null
let rebuilding = false
const schedule = () => {
  clearTimeout(timer)
  // An editor's save is several events: build once they have settled.
  timer = setTimeout(() => {
    if (queued) return
    queued = true
    publishing = publishing.then(async () => {
      queued = false
      rebuilding = true
      try {
        await publish()
      } catch (error) {
        console.error(`the build could not be written: ${error.stack ?? error}`)
      } finally {
        rebuilding = false
      }
    })
  }, 30)
}
/** publish()'s own rebuilds end here too, and are not news. */
const changes = { name: 'changes', setup (build) { build.onEnd(() => { if (!rebuilding) schedule() }) } }

// Only changed files are written, and the first build must write and start a server, whatever an earlier loop left.
await rm(out, { recursive: true, force: true })
// Not written by esbuild (write: false): publish() writes a build only once both built, so a failure leaves the last good one whole.
contexts = await Promise.all([
  esbuild.context({ ...developmentClientOptions, write: false, logLevel: 'silent', plugins: [...developmentClientOptions.plugins, changes] }),
  esbuild.context({ ...serverOptions('development'), outdir: serverOut, write: false, logLevel: 'silent', plugins: [changes] })
])

let stopping = false
async function stopAll (reason) {
  if (stopping) process.exit(1)
  stopping = true
  log(`stopping (${reason})`)
  typeChecker.kill()
  await Promise.allSettled([server.stop(), ...contexts.map((context) => context.dispose())])
  process.exit(0)
}
process.on('SIGINT', () => stopAll('SIGINT'))
process.on('SIGTERM', () => stopAll('SIGTERM'))
// npm runs this under a shell, which dies on an editor's SIGTERM without passing it on: a new parent means ours is gone.
const parent = process.ppid
setInterval(() => { if (process.ppid !== parent) void stopAll('its parent exited') }, 500).unref()

await Promise.all(contexts.map((context) => context.watch()))
