// npm run bench: the app against its ceiling, side by side, on this machine;
// then the render cache under a flood of one-off addresses, the time from
// process start to readiness (and to the first page), and the JavaScript a
// visit loads first.
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
import { manifestPath } from '../build/paths.mjs'
import { sizesOf } from '../build/sizes.mjs'
import { combineTallies, generatorBound, hitRatio, median, memoryFlat, pairedCost, pairedRatio, startupStatus, targetStatus, totalTally } from './targets.mjs'
import { cacheOutcomes, freePort, generateLoad, pinned, root, rssMiB, SERVER_CORE, runMain, startApp, startOtlpSink, timeStartup, VISITOR_COOKIES } from './harness.mjs'

// Many short pairs rather than a few long ones: on a shared machine the noise
// between two runs a second apart is as large as between runs of 3 s, so more
// pairs in the same time narrow the median ratio.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30)
const DURATION = Number(process.env.BENCH_DURATION ?? 1)
const WARMUP = 2
const CONNECTIONS = 16
/** package.json's config, which the size-budget test (test/build/size-budget.test.ts) also enforces. */
const INITIAL_JS_BUDGET_KIB = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).config.initialJavaScriptBudgetKiB

const PAGE_HEADERS = { cookie: VISITOR_COOKIES, accept: 'text/html' }
// The same visitor every time: served from the render cache.
const HOME = { method: 'GET', path: '/', headers: PAGE_HEADERS, target: 0.5 }

// Each route runs against one server: the app as npm start runs it, or a
// variant (the same build with metrics or tracing on) measured against the
// same ceiling. Server-Timing is on everywhere: every document carries it.
const ALL_ROUTES = [
  { name: 'GET /', ...HOME },
  { name: 'GET / (metrics on)', ...HOME, server: 'metrics', costOver: 'GET /' },
  // Opt-in (BENCH_TRACING=1): a minute more, for the cost the README quotes.
  ...(process.env.BENCH_TRACING === '1' ? [{ name: 'GET / (tracing on)', ...HOME, server: 'tracing', costOver: 'GET /' }] : []),
  // A new address every time, as a page with per-visitor data: rendered for each request.
  { name: 'GET /?unique=N', method: 'GET', path: '/', addresses: { kind: 'unique' }, queryParameter: 'unique', headers: PAGE_HEADERS, target: 0.2 },
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

/**
 * Cache pollution: 90 % of requests for a set of popular addresses nearly as
 * large as the render cache holds (about 1 700 of these documents), 10 % for
 * addresses asked for once. The popular ones must keep being served from the
 * cache; measured on the app alone, after a warm-up that asks for each
 * popular address about seven times (a document is kept on its second sighting).
 */
const MIXED = { name: 'GET / 90 % popular, 10 % unique', path: '/', headers: PAGE_HEADERS, addresses: { kind: 'mixed', popular: 1500, uniqueShare: 0.1 }, warmupRequests: 12_000, seconds: Number(process.env.BENCH_MIXED_SECONDS ?? 10), popularHitTarget: 0.95 }

const STARTS = Number(process.env.BENCH_STARTS ?? 10)
const STARTUP_TARGET_MS = 250

// BENCH_ONLY="GET /" (or several names, comma-separated; "start-up" for the
// starts) measures only those while profiling; the full run measures all.
const ONLY = process.env.BENCH_ONLY?.split(',')
const ROUTES = ONLY ? ALL_ROUTES.filter((route) => ONLY.includes(route.name)) : ALL_ROUTES
const MEASURE_STARTUP = !ONLY || ONLY.includes('start-up')

/** Headers that belong to one connection or one moment, not to the response. */
const TRANSIENT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

/** What the app answers for each route: the ceiling replays exactly this. */
async function captureFixtures (url) {
  const fixtures = []
  // A variant's requests are the app's own: the ceiling answers them from the same fixture.
  for (const route of ALL_ROUTES.filter((route) => !route.server)) {
    const address = route.queryParameter ? `${route.path}?${route.queryParameter}=fixture` : route.path
    const response = await fetch(`${url}${address}`, { method: route.method, headers: route.headers, body: route.body, redirect: 'manual' })
    const headers = {}
    for (const [name, value] of response.headers) if (!TRANSIENT_HEADERS.has(name)) headers[name] = value
    const setCookies = response.headers.getSetCookie()
    if (setCookies.length > 0) headers['set-cookie'] = setCookies
    const body = Buffer.from(await response.arrayBuffer())
    if (response.status >= 400) throw new Error(`${route.name} answered ${response.status}: the bench needs a working app`)
    fixtures.push({ method: route.method, path: route.path, queryParameter: route.queryParameter, status: response.status, headers, body: body.toString('base64'), bytes: body.length })
  }
  return fixtures
}

/** Runs the generator on its own core for `length` (seconds, or { amount } requests); returns its result and how busy each side was. */
async function load (url, route, length, serverPid) {
  const options = { url: `${url}${route.path}`, path: route.path, addresses: route.addresses, method: route.method, headers: route.headers, body: route.body, connections: CONNECTIONS, ...(typeof length === 'number' ? { duration: length } : length) }
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

/** Ten starts of the built app, one after another, before anything else runs: readiness and first page, in ms. */
async function measureStartup () {
  const starts = []
  for (let start = 0; start < STARTS; start++) starts.push(await timeStartup())
  const readyMs = starts.map((run) => Number(run.readyMs.toFixed(1)))
  const firstPageMs = starts.map((run) => Number(run.firstPageMs.toFixed(1)))
  const rounded = (values) => Number(median(values).toFixed(1))
  return { readyMs, medianReadyMs: rounded(readyMs), firstPageMs, medianFirstPageMs: rounded(firstPageMs), targetMs: STARTUP_TARGET_MS, status: startupStatus(readyMs, STARTUP_TARGET_MS) }
}

/** The pollution run: the app alone under the 90/10 mix; what the render cache did for each kind of address. */
async function measureMixed (app, url) {
  await load(url, MIXED, { amount: MIXED.warmupRequests }, app.pid)
  const before = await cacheOutcomes(app)
  const run = await load(url, MIXED, MIXED.seconds, app.pid)
  const kinds = combineTallies(await cacheOutcomes(app), before, -1)
  const popular = hitRatio(kinds.popular ?? { hit: 0, miss: 0, bypass: 0 })
  const met = popular !== null && popular > MIXED.popularHitTarget && run.errors === 0 && run.badStatus === 0
  return { rps: Math.round(run.rps), errors: run.errors, badStatus: run.badStatus, kinds, popularHitRatio: popular, uniqueHitRatio: hitRatio(kinds.unique ?? { hit: 0, miss: 0, bypass: 0 }), target: MIXED.popularHitTarget, met }
}

async function main () {
  execFileSync(process.execPath, ['build/cli.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' })

  let startup = null
  if (MEASURE_STARTUP) {
    console.log(`start-up: ${STARTS} starts of the built app`)
    startup = await measureStartup()
  }
  if (ROUTES.length === 0) {
    printStartup(startup)
    return startup.status === 'met'
  }

  const { url: appUrl, child: app } = await startApp()
  const servers = { app: { url: appUrl, pid: app.pid, child: app } }
  const variants = new Set(ROUTES.map((route) => route.server).filter(Boolean))
  // The metrics listener is scraped once at the end, to show the variant really counted.
  const metricsPort = await freePort()
  if (variants.has('metrics')) {
    const { url, child } = await startApp({ METRICS_PORT: String(metricsPort) })
    servers.metrics = { url, pid: child.pid, child }
  }
  if (variants.has('tracing')) {
    const { url, child } = await startApp({ OTEL_EXPORTER_OTLP_ENDPOINT: await startOtlpSink() })
    servers.tracing = { url, pid: child.pid, child }
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
  const cacheTallies = Object.fromEntries(ROUTES.map((route) => [route.name, {}]))
  const memory = []
  for (let round = 1; round <= ROUNDS; round++) {
    for (const route of ROUTES) {
      // Each pair in turn order (app first, then ceiling first), so that a machine
      // speeding up or slowing down during a pair favours neither side.
      const targets = targetsOf(route)
      for (const name of round % 2 ? ['app', 'ceiling'] : ['ceiling', 'app']) {
        const probed = name === 'app' ? targets.app.child : null
        const before = probed ? await cacheOutcomes(probed) : null
        runs[route.name][name].push(await load(targets[name].url, route, DURATION, targets[name].pid))
        if (probed) cacheTallies[route.name] = combineTallies(cacheTallies[route.name], combineTallies(await cacheOutcomes(probed), before, -1))
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
    const cache = totalTally(cacheTallies[route.name])
    routes[route.name] = { app: appSummary, ceiling: ceilingSummary, ratio, target: route.target, status, met: status === 'met', generatorBound: bound, cache: { ...cache, hitRatio: hitRatio(cache) } }
    if (route.costOver && runs[route.costOver]) {
      routes[route.name].costMicrosPerRequest = Number(pairedCost(runs[route.name].app.map((run) => run.cpuMicros), runs[route.costOver].app.map((run) => run.cpuMicros)).toFixed(1))
    }
  }
  if (servers.metrics) {
    const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    if (!/^http_request_duration_seconds_count\{[^}]*route="\/"[^}]*\} [1-9]/m.test(scraped)) throw new Error('the metrics variant counted no GET /: were metrics on?')
  }
  const memoryHeldFlat = memoryFlat(memory)

  const mixed = process.env.BENCH_ONLY ? null : await measureMixed(app, appUrl)

  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'))
  const sizes = await sizesOf(manifest)
  const client = {
    initial: { raw: kib(sizes.initial.raw), gzip: kib(sizes.initial.gzip), brotli: kib(sizes.initial.brotli) },
    shell: { gzip: kib(sizes.shell.gzip) },
    heaviestPage: { id: sizes.heaviestPage.id, gzip: kib(sizes.heaviestPage.gzip) },
    tracker: { raw: kib(sizes.tracker.raw), gzip: kib(sizes.tracker.gzip), brotli: kib(sizes.tracker.brotli) },
    budgetKiB: INITIAL_JS_BUDGET_KIB,
    met: kib(sizes.initial.gzip) <= INITIAL_JS_BUDGET_KIB
  }

  printTable(routes, memory, memoryHeldFlat, client, startup, mixed)

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cores: availableParallelism(),
    rounds: ROUNDS,
    durationSeconds: DURATION,
    connections: CONNECTIONS,
    startup,
    routes,
    mixed,
    memory: { rssAfterRoundMiB: memory, flat: memoryHeldFlat },
    client,
    allTargetsMet: Object.values(routes).every((route) => route.met) && memoryHeldFlat && client.met && (startup?.status ?? 'met') === 'met' && (mixed?.met ?? true)
  }
  await writeFile(join(root, 'bench/results/latest.json'), JSON.stringify(results, null, 2) + '\n')
  const line = ROUTES.map((route) => {
    const { app, ratio, status, costMicrosPerRequest } = routes[route.name]
    const cost = costMicrosPerRequest === undefined ? '' : `, ${costMicrosPerRequest} µs CPU per request over ${route.costOver}`
    return `${route.name} ${app.rps} rps (${Math.round(ratio * 100)}% of ceiling${status === 'unproven' ? ', ceiling generator-bound' : ''}${cost})`
  }).join('; ')
  const mixedLine = mixed ? `; popular hit ratio under 10 % unique ${percent(mixed.popularHitRatio)}` : ''
  await appendFile(join(root, 'bench/HISTORY.md'), `- ${results.date.slice(0, 16).replace('T', ' ')} UTC, ${results.node}: ${line}${mixedLine}${startup ? `; start-up ${startup.medianReadyMs} ms, first GET / ${startup.medianFirstPageMs} ms (medians of ${STARTS})` : ''}; memory ${memory[0]} → ${memory.at(-1)} MiB over ${memory.length} rounds (${memoryHeldFlat ? 'flat' : 'GROWING'}); initial JS ${client.initial.gzip} KiB gzip, tracker ${client.tracker.gzip} KiB gzip${results.allTargetsMet ? '' : ' — TARGETS MISSED'}\n`)
  console.log('\nwritten to bench/results/latest.json and bench/HISTORY.md')
  return results.allTargetsMet
}

const percent = (ratio) => ratio === null ? '—' : `${(ratio * 100).toFixed(1)}%`

function printStartup (startup) {
  console.log(`start-up to readiness: median ${startup.medianReadyMs} ms of ${startup.readyMs.length} (${startup.readyMs.join(', ')}) (target ≤ ${startup.targetMs} ms: ${startup.status === 'met' ? 'met' : 'MISSED'})`)
  console.log(`first GET / after start: median ${startup.medianFirstPageMs} ms (${startup.firstPageMs.join(', ')})`)
}

const STATUS_WORDS = { met: 'met', missed: 'MISSED', unproven: 'UNPROVEN (ceiling generator-bound)' }

function printTable (routes, memory, memoryHeldFlat, client, startup, mixed) {
  const rows = [['route', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx/3xx', 'cache hits', 'app ÷ ceiling', 'target']]
  for (const [name, route] of Object.entries(routes)) {
    for (const side of ['app', 'ceiling']) {
      const summary = route[side]
      rows.push([
        side === 'app' ? name : '',
        side + (route.generatorBound[side] ? ' (generator-bound)' : ''),
        String(summary.rps), String(summary.p50), String(summary.p99), String(summary.errors), String(summary.badStatus),
        side === 'app' ? percent(route.cache.hitRatio) : '',
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
  if (mixed) {
    console.log(`\n${MIXED.name} (app alone, ${MIXED.seconds} s): ${mixed.rps} req/s, popular pages served from the cache ${percent(mixed.popularHitRatio)} (target > ${MIXED.popularHitTarget * 100}%: ${mixed.met ? 'met' : 'MISSED'}), unique ${percent(mixed.uniqueHitRatio)}, errors ${mixed.errors}, non-2xx/3xx ${mixed.badStatus}`)
  }
  if (startup) printStartup(startup)
  console.log(`app resident memory after each round: ${memory.join(' → ')} MiB (${memoryHeldFlat ? 'flat' : 'GROWING'})`)
  console.log(`initial JavaScript: ${client.initial.raw} KiB raw, ${client.initial.gzip} KiB gzip, ${client.initial.brotli} KiB brotli: shell ${client.shell.gzip} + heaviest page "${client.heaviestPage.id}" ${client.heaviestPage.gzip} (budget ${client.budgetKiB} KiB gzip: ${client.met ? 'met' : 'MISSED'})`)
  console.log(`tracker chunk:      ${client.tracker.raw} KiB raw, ${client.tracker.gzip} KiB gzip, ${client.tracker.brotli} KiB brotli (loaded after hydration)`)
}

await runMain('bench', main)
