// npm run bench: the app against its ceiling, side by side, on this machine.
//
// The app and the ceiling (bench/ceiling.mjs: the same responses, precomputed)
// run pinned to core 0, the load generator to core 1, so they do not fight for
// a core. Rounds interleave app and ceiling so that machine noise hits both.
// Everything listens on 127.0.0.1 and is stopped at the end.
import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { manifestPath, sizesOf } from '../build.mjs'
import { generatorBound, median, pairedCost, pairedRatio, targetStatus } from './targets.mjs'
import { freePort, generateLoad, pinned, root, rssMiB, SERVER_CORE, runMain, startApp, startOtlpSink, VISITOR_COOKIES } from './harness.mjs'

// Many short pairs rather than a few long ones: on a shared machine the noise
// between two runs a second apart is as large as between runs of 3 s, so more
// pairs in the same time narrow the median ratio.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30)
const DURATION = Number(process.env.BENCH_DURATION ?? 1)
const WARMUP = 2
const CONNECTIONS = 16
/** package.json's config, which the size-budget test (test/build/size-budget.test.ts) also enforces. */
const INITIAL_JS_BUDGET_KIB = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).config.initialJavaScriptBudgetKiB

const HOME = { method: 'GET', path: '/', headers: { cookie: VISITOR_COOKIES, accept: 'text/html' }, target: 0.5 }

// Each route runs against one server: the app as npm start runs it, or a
// variant (the same build with metrics or tracing on) measured against the
// same ceiling. Server-Timing is on everywhere: every document carries it.
const ALL_ROUTES = [
  { name: 'GET /', ...HOME },
  { name: 'GET / (metrics on)', ...HOME, server: 'metrics', costOver: 'GET /' },
  // Opt-in (BENCH_TRACING=1): a minute more, for the cost the README quotes.
  ...(process.env.BENCH_TRACING === '1' ? [{ name: 'GET / (tracing on)', ...HOME, server: 'tracing', costOver: 'GET /' }] : []),
  { name: 'GET /resources/healthcheck', method: 'GET', path: '/resources/healthcheck', headers: {}, target: 0.8 },
  {
    name: 'POST /resources/theme-switch',
    method: 'POST',
    path: '/resources/theme-switch',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: VISITOR_COOKIES },
    body: 'theme=light&redirectTo=%2F',
    target: 0.8
  }
]

// BENCH_ONLY="GET /" (or several names, comma-separated) measures only those while profiling; the full run measures all.
const ROUTES = process.env.BENCH_ONLY ? ALL_ROUTES.filter((route) => process.env.BENCH_ONLY.split(',').includes(route.name)) : ALL_ROUTES

/** Headers that belong to one connection or one moment, not to the response. */
const TRANSIENT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

/** What the app answers for each route: the ceiling replays exactly this. */
async function captureFixtures (url) {
  const fixtures = []
  // A variant's requests are the app's own: the ceiling answers them from the same fixture.
  for (const route of ALL_ROUTES.filter((route) => !route.server)) {
    const response = await fetch(`${url}${route.path}`, { method: route.method, headers: route.headers, body: route.body, redirect: 'manual' })
    const headers = {}
    for (const [name, value] of response.headers) if (!TRANSIENT_HEADERS.has(name)) headers[name] = value
    const setCookies = response.headers.getSetCookie()
    if (setCookies.length > 0) headers['set-cookie'] = setCookies
    const body = Buffer.from(await response.arrayBuffer())
    if (response.status >= 400) throw new Error(`${route.name} answered ${response.status}: the bench needs a working app`)
    fixtures.push({ method: route.method, path: route.path, status: response.status, headers, body: body.toString('base64'), bytes: body.length })
  }
  return fixtures
}

/** Runs the generator on its own core; returns its result and how busy each side was. */
async function load (url, route, duration, serverPid) {
  const options = { url: `${url}${route.path}`, method: route.method, headers: route.headers, body: route.body, connections: CONNECTIONS, duration }
  const { result, serverCpu, serverCpuSeconds, generatorCpu } = await generateLoad(route.name, options, serverPid)
  const badStatus = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => Number(status) < 200 || Number(status) >= 400)
    .reduce((sum, [, stats]) => sum + stats.count, 0)
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    badStatus,
    serverCpu,
    cpuMicros: serverCpuSeconds * 1e6 / result.requests.total,
    generatorCpu
  }
}

function summarize (runs) {
  return {
    rps: Math.round(median(runs.map((run) => run.rps))),
    rpsByRound: runs.map((run) => Math.round(run.rps)),
    cpuMicrosByRound: runs.map((run) => Number(run.cpuMicros.toFixed(1))),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    badStatus: runs.reduce((sum, run) => sum + run.badStatus, 0),
    serverCpu: Number(median(runs.map((run) => run.serverCpu)).toFixed(2)),
    generatorCpu: Number(median(runs.map((run) => run.generatorCpu)).toFixed(2))
  }
}

const kib = (bytes) => Number((bytes / 1024).toFixed(1))

async function main () {
  execFileSync(process.execPath, ['build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' })

  const { url: appUrl, child: app } = await startApp()
  const servers = { app: { url: appUrl, pid: app.pid } }
  const variants = new Set(ROUTES.map((route) => route.server).filter(Boolean))
  // The metrics listener is scraped once at the end, to show the variant really counted.
  const metricsPort = await freePort()
  if (variants.has('metrics')) {
    const { url, child } = await startApp({ METRICS_PORT: String(metricsPort) })
    servers.metrics = { url, pid: child.pid }
  }
  if (variants.has('tracing')) {
    const { url, child } = await startApp({ OTEL_EXPORTER_OTLP_ENDPOINT: await startOtlpSink() })
    servers.tracing = { url, pid: child.pid }
  }

  const fixtures = await captureFixtures(appUrl)
  const fixturesPath = join(root, 'bench/results/fixtures.json')
  await mkdir(dirname(fixturesPath), { recursive: true })
  await writeFile(fixturesPath, JSON.stringify(fixtures))
  const ceilingPort = await freePort()
  const ceilingUrl = `http://127.0.0.1:${ceilingPort}`
  const ceiling = pinned(SERVER_CORE, [join(root, 'bench/ceiling.mjs'), fixturesPath, String(ceilingPort)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  await once(ceiling, 'message')

  const ceilingServer = { url: ceilingUrl, pid: ceiling.pid }
  const targetsOf = (route) => ({ app: servers[route.server ?? 'app'], ceiling: ceilingServer })
  console.log(`warming up (${WARMUP} s per route and server)`)
  for (const route of ROUTES) for (const target of Object.values(targetsOf(route))) await load(target.url, route, WARMUP, target.pid)

  const runs = Object.fromEntries(ROUTES.map((route) => [route.name, { app: [], ceiling: [] }]))
  const memory = []
  for (let round = 1; round <= ROUNDS; round++) {
    for (const route of ROUTES) {
      // Each pair in turn order (app first, then ceiling first), so that a machine
      // speeding up or slowing down during a pair favours neither side.
      const targets = targetsOf(route)
      for (const name of round % 2 ? ['app', 'ceiling'] : ['ceiling', 'app']) {
        runs[route.name][name].push(await load(targets[name].url, route, DURATION, targets[name].pid))
      }
    }
    memory.push(Number((await rssMiB(app.pid)).toFixed(1)))
    console.log(`round ${round}/${ROUNDS} done, app resident memory ${memory.at(-1)} MiB`)
  }

  const routes = {}
  for (const route of ROUTES) {
    const appSummary = summarize(runs[route.name].app)
    const ceilingSummary = summarize(runs[route.name].ceiling)
    const ratio = Number(pairedRatio(runs[route.name].app.map((run) => run.rps), runs[route.name].ceiling.map((run) => run.rps)).toFixed(3))
    const bound = { app: generatorBound(appSummary), ceiling: generatorBound(ceilingSummary) }
    const status = targetStatus(ratio, route.target, appSummary, bound.ceiling)
    routes[route.name] = { app: appSummary, ceiling: ceilingSummary, ratio, target: route.target, status, met: status === 'met', generatorBound: bound }
    if (route.costOver && runs[route.costOver]) {
      routes[route.name].costMicrosPerRequest = Number(pairedCost(runs[route.name].app.map((run) => run.cpuMicros), runs[route.costOver].app.map((run) => run.cpuMicros)).toFixed(1))
    }
  }
  if (servers.metrics) {
    const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    if (!/^http_request_duration_seconds_count\{[^}]*route="\/"[^}]*\} [1-9]/m.test(scraped)) throw new Error('the metrics variant counted no GET /: were metrics on?')
  }
  // Flat: the last round holds no more than 10% (and 8 MiB) above the first.
  const memoryFlat = memory.at(-1) <= Math.max(memory[0] * 1.1, memory[0] + 8)

  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'))
  const sizes = await sizesOf(manifest)
  const client = {
    initial: { raw: kib(sizes.initial.raw), gzip: kib(sizes.initial.gzip), brotli: kib(sizes.initial.brotli) },
    tracker: { raw: kib(sizes.tracker.raw), gzip: kib(sizes.tracker.gzip), brotli: kib(sizes.tracker.brotli) },
    budgetKiB: INITIAL_JS_BUDGET_KIB,
    met: kib(sizes.initial.gzip) <= INITIAL_JS_BUDGET_KIB
  }

  printTable(routes, memory, memoryFlat, client)

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cores: availableParallelism(),
    rounds: ROUNDS,
    durationSeconds: DURATION,
    connections: CONNECTIONS,
    routes,
    memory: { rssAfterRoundMiB: memory, flat: memoryFlat },
    client,
    allTargetsMet: Object.values(routes).every((route) => route.met) && memoryFlat && client.met
  }
  await writeFile(join(root, 'bench/results/latest.json'), JSON.stringify(results, null, 2) + '\n')
  const line = ROUTES.map((route) => {
    const { app, ratio, status, costMicrosPerRequest } = routes[route.name]
    const cost = costMicrosPerRequest === undefined ? '' : `, ${costMicrosPerRequest} µs CPU per request over ${route.costOver}`
    return `${route.name} ${app.rps} rps (${Math.round(ratio * 100)}% of ceiling${status === 'unproven' ? ', ceiling generator-bound' : ''}${cost})`
  }).join('; ')
  await appendFile(join(root, 'bench/HISTORY.md'), `- ${results.date.slice(0, 16).replace('T', ' ')} UTC, ${results.node}: ${line}; memory ${memory[0]} → ${memory.at(-1)} MiB over ${memory.length} rounds (${memoryFlat ? 'flat' : 'GROWING'}); initial JS ${client.initial.gzip} KiB gzip, tracker ${client.tracker.gzip} KiB gzip${results.allTargetsMet ? '' : ' — TARGETS MISSED'}\n`)
  console.log('\nwritten to bench/results/latest.json and bench/HISTORY.md')
  return results.allTargetsMet
}

const STATUS_WORDS = { met: 'met', missed: 'MISSED', unproven: 'UNPROVEN (ceiling generator-bound)' }

function printTable (routes, memory, memoryFlat, client) {
  const rows = [['route', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx/3xx', 'app ÷ ceiling', 'target']]
  for (const [name, route] of Object.entries(routes)) {
    for (const side of ['app', 'ceiling']) {
      const summary = route[side]
      rows.push([
        side === 'app' ? name : '',
        side + (route.generatorBound[side] ? ' (generator-bound)' : ''),
        String(summary.rps), String(summary.p50), String(summary.p99), String(summary.errors), String(summary.badStatus),
        side === 'app' ? `${(route.ratio * 100).toFixed(1)}%` : '',
        side === 'app' ? `≥ ${route.target * 100}% ${STATUS_WORDS[route.status]}` : ''
      ])
    }
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  console.log('')
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '))
  for (const [name, route] of Object.entries(routes)) {
    if (route.costMicrosPerRequest !== undefined) console.log(`\n${name}: ${route.costMicrosPerRequest} µs more CPU per request than without (median of the rounds' differences)`)
  }
  console.log(`\napp resident memory after each round: ${memory.join(' → ')} MiB (${memoryFlat ? 'flat' : 'GROWING'})`)
  console.log(`initial JavaScript: ${client.initial.raw} KiB raw, ${client.initial.gzip} KiB gzip, ${client.initial.brotli} KiB brotli (budget ${client.budgetKiB} KiB gzip: ${client.met ? 'met' : 'MISSED'})`)
  console.log(`tracker chunk:      ${client.tracker.raw} KiB raw, ${client.tracker.gzip} KiB gzip, ${client.tracker.brotli} KiB brotli (loaded after hydration)`)
}

await runMain('bench', main)
