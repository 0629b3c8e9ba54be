// What npm run bench and npm run soak share: the app pinned to core 0, wrk to core 1, the server's readings from
// /proc. Every process started here is stopped when the importing script exits.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdir, readFile } from 'node:fs/promises'
import { createServer as createHttpServer, get as httpGet } from 'node:http'
import { createServer } from 'node:net'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runWrk } from './wrk.mjs'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const SERVER_CORE = '0'
export const GENERATOR_CORE = availableParallelism() > 1 ? '1' : '0'

export const VISITOR_COOKIES = 'en_theme=dark; CH-prefers-color-scheme=dark; CH-time-zone=Europe%2FParis'

const children = new Set()
export function stopAll () {
  for (const child of children) child.kill('SIGTERM')
}
process.on('exit', stopAll)
process.on('SIGINT', () => process.exit(130))

export async function runMain (name, main) {
  try {
    const met = await main()
    stopAll()
    process.exitCode = met ? 0 : 1
  } catch (error) {
    console.error(`${name} failed: ${error.message}`)
    stopAll()
    process.exitCode = 1
  }
}

export async function freePort () {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  server.close()
  return port
}

export function pinned (core, args, options = {}) {
  const child = spawn('taskset', ['-c', core, process.execPath, ...args], { cwd: root, ...options })
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

async function waitForHealth (url, child) {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
    try {
      const response = await fetch(`${url}/resources/healthcheck`)
      if (response.ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no answer from ${url} within 15 s`)
}

const appEnv = (port, env = {}) => ({
  ...process.env,
  NODE_ENV: 'production',
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  SESSION_SECRET: 'bench-session-secret-0123456789abcdef0123456789',
  HONEYPOT_SECRET: 'bench-honeypot-secret-0123456789abcdef012345678',
  // bench/app-probe.mjs reads the cache outcome from Server-Timing, which production leaves out unless asked.
  SERVER_TIMING: 'true',
  ...env
})

const PROBE = join(root, 'bench', 'app-probe.mjs')

/** With the bench's probe (app-probe.mjs). */
export async function startApp (env = {}) {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = pinned(SERVER_CORE, [`--import=${PROBE}`, 'dist/server/main.js'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: appEnv(port, env) })
  await waitForHealth(url, child)
  return { url, child }
}

export async function startServer ({ script, cwd, env = {} }) {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = pinned(SERVER_CORE, [script], { cwd, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' } })
  await waitForHealth(url, child)
  return { url, child }
}

function askProbe (child, question, key) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.off('message', onMessage); reject(new Error(`the app's probe did not answer ${question}`)) }, 5000)
    const onMessage = (message) => {
      if (!message?.[key]) return
      clearTimeout(timer)
      child.off('message', onMessage)
      resolve(message[key])
    }
    child.on('message', onMessage)
    child.send(question)
  })
}

/** { plain|popular|unique: { hit, miss, bypass } } */
export const cacheOutcomes = (child) => askProbe(child, 'cache-outcomes', 'cacheOutcomes')

/** User and system, in µs. */
export const cpuUsageMicros = async (child) => {
  const { user, system } = await askProbe(child, 'cpu-usage', 'cpuUsage')
  return user + system
}

function getOnce (url, headers = {}) {
  return new Promise((resolve) => {
    const request = httpGet(url, { agent: false, headers }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode))
    })
    request.on('error', () => resolve(0))
  })
}

/** To the first 200 from readiness (asked every ms), then the first GET /. The CPU spent by readiness tells a host
 * that computes slower (both rise) from one that wakes slower. */
export async function timeStartup () {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child = pinned(SERVER_CORE, ['dist/server/main.js'], { stdio: ['ignore', 'ignore', 'inherit'], env: appEnv(port) })
  const exited = once(child, 'exit')
  try {
    const deadline = started + 15_000
    while (await getOnce(`${url}/resources/readiness`) !== 200) {
      if (child.exitCode !== null || performance.now() > deadline) throw new Error(`the app did not become ready (exit code ${child.exitCode})`)
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    const readyMs = performance.now() - started
    const readyCpuMs = await cpuMs(child.pid)
    const before = performance.now()
    const status = await getOnce(`${url}/`, { cookie: VISITOR_COOKIES, accept: 'text/html' })
    if (status !== 200) throw new Error(`the first GET / answered ${status}`)
    return { readyMs, readyCpuMs, firstPageMs: performance.now() - before }
  } finally {
    child.kill('SIGTERM')
    await exited
  }
}

/** Every thread, from the scheduler's own count (schedstat, in ns). */
async function cpuMs (pid) {
  const threads = await readdir(`/proc/${pid}/task`)
  const times = await Promise.all(threads.map((thread) => readFile(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').catch(() => '0')))
  return times.reduce((sum, line) => sum + Number(line.split(' ')[0]), 0) / 1e6
}

async function cpuTicks (pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)
  if (!stat) return 0
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12])
}

export async function rssMiB (pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024
}

/** Plus the server's CPU over the run: how busy it kept its core, and µs per request. */
export async function measureLoad (url, route, { connections, seconds, stopAfter, mix, delayMs }, serverPid) {
  const before = await cpuTicks(serverPid)
  const started = performance.now()
  const result = await runWrk({ url, route, mix, delayMs, connections, seconds: seconds ?? 60, stopAfter, core: GENERATOR_CORE })
  const wallSeconds = (performance.now() - started) / 1000
  const serverCpuSeconds = (await cpuTicks(serverPid) - before) / 100
  return { ...result, serverCpu: serverCpuSeconds / wallSeconds, cpuMicros: serverCpuSeconds * 1e6 / Math.max(1, result.requests) }
}

/** Drops every OTLP export, for the traced variant. */
export async function startOtlpSink () {
  const server = createHttpServer((request, response) => {
    request.resume()
    request.once('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  process.once('exit', () => server.close())
  return `http://127.0.0.1:${server.address().port}`
}
