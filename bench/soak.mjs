// npm run soak (docs/performance.md, Soak); SOAK_MINUTE_SECONDS shortens each "minute", to try the soak itself.
// The rate stays well below what the app can serve, so latency measures the app rather than a queue. The warm-up
// minute, while V8 grows its heap and compiles, is left out: the last minute is held to the first after it, within
// MEMORY_BAND and P99_BAND, with no errors or unexpected statuses, or the script exits 1.
import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { manifestPath } from '../build/paths.mjs'
import { GENERATOR_CORE, measureLoad, root, rssMiB, SERVER_CORE, runMain, startApp, VISITOR_COOKIES } from './harness.mjs'
import { ensureWrk } from './wrk.mjs'

const MINUTES = positiveInteger('SOAK_MINUTES', 10)
const RATE = positiveInteger('SOAK_RATE', 200)
const CONNECTIONS = 10
const MINUTE_SECONDS = Number(process.env.SOAK_MINUTE_SECONDS ?? 60)
const MEMORY_BAND = { ratio: 0.1, mib: 8 }
// At a few milliseconds, a narrower band is within the noise of a shared machine.
const P99_BAND = { ratio: 0.25, ms: 5 }

function positiveInteger (name, fallback) {
  const value = Number(process.env[name] ?? fallback)
  if (Number.isInteger(value) && value >= 1) return value
  console.error(`${name} must be a whole number of at least 1, not ${process.env[name]}`)
  process.exit(1)
}

function mix (url, assetPath) {
  return [
    { name: 'GET /', status: 200, method: 'GET', path: '/', headers: { cookie: VISITOR_COOKIES, accept: 'text/html', 'accept-encoding': 'br, gzip' } },
    { name: 'health check', status: 200, method: 'GET', path: '/resources/healthcheck', headers: {} },
    {
      name: 'theme switch form',
      status: 303,
      method: 'POST',
      path: '/resources/theme-switch',
      // As a browser posts the form from the page: same origin, said twice.
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: VISITOR_COOKIES, origin: url, 'sec-fetch-site': 'same-origin' },
      body: 'theme=light&redirectTo=%2F'
    },
    { name: '404', status: 404, method: 'GET', path: '/no-such-page', headers: { cookie: VISITOR_COOKIES, accept: 'text/html' } },
    { name: 'static asset', status: 200, method: 'GET', path: assetPath, headers: { 'accept-encoding': 'br, gzip' } }
  ]
}

async function preflight (url, requests) {
  for (const request of requests) {
    const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual' })
    await response.arrayBuffer()
    if (response.status !== request.status) throw new Error(`${request.name} answered ${response.status}, not ${request.status}`)
  }
}

/** A response's own time comes on top. */
const DELAY_MS = Math.max(1, Math.round(CONNECTIONS * 1000 / RATE))

async function minute (label, url, requests, pid, seconds) {
  const mix = requests.map(({ method, path, headers, body }) => ({ method, path, headers, body }))
  const run = await measureLoad(url, null, { mix, delayMs: DELAY_MS, connections: CONNECTIONS, seconds }, pid)
  const expected = new Set(requests.map((request) => String(request.status)))
  const unexpected = Object.entries(run.statuses)
    .filter(([status]) => !expected.has(status))
    .reduce((sum, [, count]) => sum + count, 0)
  return {
    label,
    requests: run.requests,
    rps: Math.round(run.requests / seconds),
    p50: run.p50,
    p99: run.p99,
    max: run.max,
    errors: run.errors,
    unexpected,
    serverCpu: Number(run.serverCpu.toFixed(2)),
    rssMiB: Number((await rssMiB(pid)).toFixed(1))
  }
}

const within = (last, first, band) => last <= first + Math.max(first * band.ratio, band.mib ?? band.ms)

function printTable (rows) {
  const header = ['minute', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'bad status', 'server CPU', 'RSS MiB']
  const cells = [header, ...rows.map((row) => [row.label, row.requests, row.rps, row.p50, row.p99, row.max, row.errors, row.unexpected, row.serverCpu, row.rssMiB].map(String))]
  const widths = header.map((_, column) => Math.max(...cells.map((line) => line[column].length)))
  for (const line of cells) console.log(line.map((cell, column) => cell.padEnd(widths[column])).join('  '))
}

async function main () {
  execFileSync(process.execPath, ['build/cli.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' })
  ensureWrk()
  const { entry } = JSON.parse(await readFile(manifestPath, 'utf8'))
  const { url, child } = await startApp()
  const requests = mix(url, entry)
  await preflight(url, requests)
  console.log(`soak: ${MINUTES} min after a warm-up minute, ${RATE} req/s over ${CONNECTIONS} connections (${requests.map((request) => request.name).join(', ')}); app on core ${SERVER_CORE}, load on core ${GENERATOR_CORE}\n`)

  const rows = []
  const progress = (row) => console.log(`${row.label}: p99 ${row.p99} ms, RSS ${row.rssMiB} MiB, ${row.errors} errors, ${row.unexpected} bad status`)
  const warmUp = await minute('warm-up', url, requests, child.pid, MINUTE_SECONDS)
  progress(warmUp)
  for (let n = 1; n <= MINUTES; n++) {
    rows.push(await minute(String(n), url, requests, child.pid, MINUTE_SECONDS))
    progress(rows.at(-1))
  }

  const first = rows[0]
  const last = rows.at(-1)
  const memoryFlat = within(last.rssMiB, first.rssMiB, MEMORY_BAND)
  const p99Flat = within(last.p99, first.p99, P99_BAND)
  const clean = [warmUp, ...rows].every((row) => row.errors === 0 && row.unexpected === 0)

  console.log('')
  printTable([warmUp, ...rows])
  console.log('')
  console.log(`memory: ${first.rssMiB} → ${last.rssMiB} MiB, ${memoryFlat ? 'flat' : 'GROWING'} (allowed: +${Math.max(first.rssMiB * MEMORY_BAND.ratio, MEMORY_BAND.mib).toFixed(1)} MiB)`)
  console.log(`p99:    ${first.p99} → ${last.p99} ms, ${p99Flat ? 'flat' : 'GROWING'} (allowed: +${Math.max(first.p99 * P99_BAND.ratio, P99_BAND.ms).toFixed(1)} ms)`)
  console.log(`errors and unexpected statuses: ${clean ? 'none' : 'SOME'}`)
  const passed = memoryFlat && p99Flat && clean
  console.log(`verdict: ${passed ? 'PASS' : 'FAIL'}`)
  return passed
}

await runMain('soak', main)
