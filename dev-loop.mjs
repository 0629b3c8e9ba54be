// The development loop: `npm run dev`. Rebuilds both bundles together on
// every change under src/ and static/ and swaps in a new server once their
// output changed; a failed build keeps the last good one serving and is
// reported to it (the overlay). The server (src/server/dev/) reloads open
// pages when it is replaced. `tsc --watch` runs beside it, at the lowest
// priority, and never holds a rebuild back (docs/decisions/development-loop.md).
// Run as a process only; test/build/dev-loop.test.ts runs it end to end.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { watch as watchFiles } from 'node:fs'
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { setPriority } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import * as esbuild from 'esbuild'
import { clientOut, dist, manifestPath, root } from './build/paths.mjs'
import { clientOptions } from './build/client.mjs'
import { manifestFrom } from './build/manifest.mjs'
import { screenModules } from './build/screens.mjs'
import { serverOptions } from './build/server.mjs'

const log = (...parts) => console.log(...parts)


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
    const manifest = manifestFrom(client.value.metafile, await screenModules())
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

await watchAndServe()
