// npm run bench (about ten minutes, thirteen with --peers): the app against its ceiling, then streaming, the render
// cache under one-off addresses, start-up and the first JavaScript. --short: a trial of the bench, not a result;
// --peers: React Router 7 too. The method and BENCH_ONLY: docs/performance.md.
import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { availableParallelism, cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { manifestPath } from '../build/paths.mjs'
import { sizesOf } from '../build/sizes.mjs'
import { holdCoresAwake, idleCondition } from './cores-awake.mjs'
import { PEER_SERVER, preparePeer } from './peer.mjs'
import { CEILING_SHARE_OF_BARE, ceilingCheck, combineTallies, generatorBound, hitRatio, javascriptStatus, median, memoryFlat, pairedCost, pairedRatio, percentile, runVerdict, startupStatus, streamCostStatus, TARGETS, targetStatus, timeToHeadStatus, totalTally } from './targets.mjs'
import { cacheOutcomes, cpuUsageMicros, freePort, GENERATOR_CORE, measureLoad, pinned, root, rssMiB, runMain, SERVER_CORE, startApp, startOtlpSink, startServer, timeStartup, VISITOR_COOKIES } from './harness.mjs'
import { ensureWrk } from './wrk.mjs'

const FLAGS = new Set(process.argv.slice(2))
for (const flag of FLAGS) {
  if (flag === '--short' || flag === '--peers') continue
  console.error(`npm run bench takes --short and --peers, not ${flag}`)
  process.exit(1)
}
const SHORT = FLAGS.has('--short')
const PEERS = FLAGS.has('--peers')
const setting = (name, full, short) => Number(process.env[name] ?? (SHORT ? short : full))

// Many short pairs rather than a few long ones: on a shared machine, runs a second apart differ as much as runs of
// 3 s, so more pairs narrow the median ratio. wrk counts whole seconds.
const ROUNDS = setting('BENCH_ROUNDS', 30, 3)
const DURATION = Math.max(1, Math.round(setting('BENCH_DURATION', 1, 1)))
const WARMUP = SHORT ? 1 : 2
/** The rounds' connection count, and the two the ceiling is checked at: enough for wrk to keep one core busy. */
const CONNECTIONS = 64
const CHECK_CONNECTIONS = [16, 64]
const CHECK_REPEATS = setting('BENCH_CHECK_REPEATS', 3, 1)

const PAGE_HEADERS = { cookie: VISITOR_COOKIES, accept: 'text/html' }
const CHROMIUM_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'
// The same visitor every time: served from the render cache.
const HOME = { method: 'GET', path: '/', headers: PAGE_HEADERS, target: TARGETS.cachedPage }

// `server`: a variant of the same build, measured against the same ceiling; `peer`: React Router answers it too.
const ALL_ROUTES = [
  { name: 'GET /', ...HOME, peer: true },
  // What a browser asks for: every one accepts compression, and gets the kept document compressed.
  { name: 'GET / (as browsers ask: br)', ...HOME, headers: { ...PAGE_HEADERS, 'accept-encoding': 'gzip, deflate, br, zstd' } },
  { name: 'GET / (metrics on)', ...HOME, server: 'metrics', costOver: 'GET /' },
  // Opt-in (BENCH_TRACING=1): a minute more, for the cost docs/operating.md quotes.
  ...(process.env.BENCH_TRACING === '1' ? [{ name: 'GET / (tracing on)', ...HOME, server: 'tracing', costOver: 'GET /' }] : []),
  // A new address every time, as a page with per-visitor data: rendered for each request.
  { name: 'GET /?unique=N', method: 'GET', path: '/', addresses: { kind: 'unique' }, queryParameter: 'unique', headers: PAGE_HEADERS, target: TARGETS.renderedPerRequest, peer: true },
  { name: 'GET /resources/healthcheck', method: 'GET', path: '/resources/healthcheck', headers: {}, target: TARGETS.healthCheck, peer: true },
  {
    name: 'POST /resources/theme-switch',
    method: 'POST',
    path: '/resources/theme-switch',
    // Chromium's Accept for a navigation, a form's included: what a browser's post costs the app to read.
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: CHROMIUM_ACCEPT, cookie: VISITOR_COOKIES },
    body: 'theme=light&redirectTo=%2F',
    target: TARGETS.themeSwitch,
    peer: true
  }
]

/** Popular addresses nearly as many as the render cache holds (about 1 700 such documents), and one-off ones asked
 * twice, as an attacker would to pass admission; the warm-up asks each popular one about seven times, and a document
 * kept from its second request displaces only those asked for less (src/server/rendering/cache-admission.ts). */
const MIXED = { name: 'GET / 90 % popular, 10 % unique', path: '/', headers: PAGE_HEADERS, addresses: { kind: 'mixed', popular: 1500, uniqueShare: 0.1, uniqueAsks: 2 }, warmupRequests: 12_000, seconds: setting('BENCH_MIXED_SECONDS', 10, 2), popularHitTarget: 0.95 }

const STREAM = { delayMs: 1000, rounds: setting('BENCH_STREAM_ROUNDS', 10, 2), seconds: setting('BENCH_STREAM_SECONDS', 5, 3) }

const STARTS = setting('BENCH_STARTS', 10, 3)

const ONLY = process.env.BENCH_ONLY?.split(',')
const CHECK_ONLY = ONLY?.includes('ceiling check') ?? false
const NAMED = ONLY ? ALL_ROUTES.filter((route) => ONLY.includes(route.name)) : ALL_ROUTES
const ROUTES = CHECK_ONLY && NAMED.length === 0 ? ALL_ROUTES.filter((route) => !route.server) : NAMED
const MEASURE_STARTUP = !ONLY || ONLY.includes('start-up')
const MEASURE_STREAMING = !ONLY || ONLY.includes('streaming')

/** Headers that belong to one connection or one moment, not to the response. */
const TRANSIENT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

/** One request, its body as it came over the wire: fetch would hand back a compressed one decoded. */
function rawRequest (url, { method, headers, body }) {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end(body)
  })
}

async function captureFixtures (url) {
  const fixtures = []
  // A variant's requests are the app's own: the ceiling answers them from the same fixture.
  for (const route of ALL_ROUTES.filter((route) => !route.server)) {
    const address = route.queryParameter ? `${route.path}?${route.queryParameter}=fixture` : route.path
    // wrk asks for no encoding unless the route does: then the app's compressed bytes are what the ceilings replay.
    const ask = () => rawRequest(`${url}${address}`, { method: route.method, headers: { 'accept-encoding': 'identity', ...route.headers }, body: route.body })
    // From its third request on, a page is answered from the render cache, as through the rounds: replay those bytes.
    if (route.method === 'GET' && !route.addresses) for (let warm = 0; warm < 2; warm++) await ask()
    const response = await ask()
    const headers = {}
    for (const [name, value] of Object.entries(response.headers)) if (!TRANSIENT_HEADERS.has(name)) headers[name] = value
    if (response.status >= 400) throw new Error(`${route.name} answered ${response.status}: the bench needs a working app`)
    fixtures.push({ method: route.method, path: route.path, queryParameter: route.queryParameter, status: response.status, headers, body: response.body.toString('base64'), bytes: response.body.length })
  }
  return fixtures
}

/** The peer must answer as the app does before its figures are put beside the app's. */
async function checkPeer (url) {
  for (const route of ALL_ROUTES.filter((route) => route.peer)) {
    const address = route.queryParameter ? `${route.path}?${route.queryParameter}=check` : route.path
    const response = await fetch(`${url}${address}`, { method: route.method, headers: route.headers, body: route.body, redirect: 'manual' })
    const body = await response.text()
    const expected = route.method === 'POST' ? 303 : 200
    if (response.status !== expected) throw new Error(`the peer answered ${route.name} with ${response.status}, not ${expected}`)
    if (route.path === '/' && !/<html lang="en" class="dark">/.test(body)) throw new Error('the peer\'s document lacks the visitor\'s theme class on <html>')
  }
}

const load = (server, route, { connections = CONNECTIONS, seconds = DURATION, stopAfter } = {}) => measureLoad(server.url, route, { connections, seconds, stopAfter }, server.pid)

const round1 = (value) => Number(value.toFixed(1))
const round2 = (value) => Number(value.toFixed(2))

function summarize (runs) {
  return {
    rps: Math.round(median(runs.map((run) => run.rps))),
    rpsByRound: runs.map((run) => Math.round(run.rps)),
    cpuMicrosByRound: runs.map((run) => Number(run.cpuMicros.toFixed(1))),
    p50: round2(median(runs.map((run) => run.p50))),
    p99: round2(median(runs.map((run) => run.p99))),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    badStatus: runs.reduce((sum, run) => sum + run.badStatus, 0),
    serverCpu: round2(median(runs.map((run) => run.serverCpu))),
    generatorCpu: round2(median(runs.map((run) => run.generatorCpu)))
  }
}

const kib = (bytes) => Number((bytes / 1024).toFixed(1))

async function measureStartup () {
  const starts = []
  for (let start = 0; start < STARTS; start++) starts.push(await timeStartup())
  const readyMs = starts.map((run) => Number(run.readyMs.toFixed(1)))
  const firstPageMs = starts.map((run) => Number(run.firstPageMs.toFixed(1)))
  const readyCpuMs = starts.map((run) => Number(run.readyCpuMs.toFixed(1)))
  const rounded = (values) => Number(median(values).toFixed(1))
  return { readyMs, medianReadyMs: rounded(readyMs), readyCpuMs, medianReadyCpuMs: rounded(readyCpuMs), firstPageMs, medianFirstPageMs: rounded(firstPageMs), targetMs: TARGETS.startupMs, status: startupStatus(readyMs, TARGETS.startupMs) }
}

/** Against Node's http server on the same bytes; also each one's CPU µs per request, which a busy machine moves less. */
async function checkCeiling (route, servers) {
  const readings = { ceiling: {}, bare: {}, reply: {} }
  const micros = { ceiling: {}, bare: {}, reply: {} }
  for (const connections of CHECK_CONNECTIONS) {
    const names = connections === CONNECTIONS ? ['ceiling', 'bare', 'reply'] : ['ceiling', 'bare']
    const runs = Object.fromEntries(names.map((name) => [name, []]))
    for (let repeat = 0; repeat < CHECK_REPEATS; repeat++) {
      for (const name of rotate(names, repeat)) {
        const server = servers[name]
        const before = await cpuUsageMicros(server.child)
        const run = await load(server, route, { connections })
        runs[name].push({ ...run, cpuMicros: (await cpuUsageMicros(server.child) - before) / Math.max(1, run.requests) })
      }
    }
    for (const name of names) {
      readings[name][connections] = Math.round(median(runs[name].map((run) => run.rps)))
      micros[name][connections] = round1(median(runs[name].map((run) => run.cpuMicros)))
    }
  }
  const check = ceilingCheck(readings.ceiling, readings.bare)
  const reply = { rps: readings.reply[CONNECTIONS], ofCeiling: round3(readings.reply[CONNECTIONS] / readings.ceiling[CONNECTIONS]), cpuMicros: micros.reply[CONNECTIONS] }
  return { ceiling: readings.ceiling, bare: readings.bare, ...check, cpuMicros: { ceiling: micros.ceiling[check.ceilingConnections], bare: micros.bare[check.bareConnections] }, reply }
}

const rotate = (names, turn) => names.map((_name, index) => names[(index + turn) % names.length])

async function timeToHead (url, { path, headers }) {
  const options = { url, path, headers, connections: TARGETS.timeToHead.connections, seconds: STREAM.seconds }
  const child = pinned(GENERATOR_CORE, [join(root, 'bench/time-to-head.mjs'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => { output += chunk })
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`the time-to-head client exited with ${code} for ${path}`)
  return JSON.parse(output)
}

/** A crawler gets the document whole, with no head sent ahead (docs/streaming.md). */
const CRAWLER = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

/** Interleaved rounds, streamed to a returning visitor and whole: when each head arrived, and CPU per request. */
async function measureStreaming () {
  const { url, child } = await startApp()
  const path = `/examples/streaming?delay=${STREAM.delayMs}`
  const pages = { streamed: { path, headers: PAGE_HEADERS }, whole: { path, headers: { accept: 'text/html', 'user-agent': CRAWLER } } }
  console.log(`streaming: a page whose data takes ${STREAM.delayMs} ms, streamed and whole, ${STREAM.rounds} rounds of ${STREAM.seconds} s at ${TARGETS.timeToHead.connections} connections`)
  for (const page of Object.values(pages)) await timeToHead(url, page)
  const runs = { streamed: [], whole: [] }
  for (let round = 0; round < STREAM.rounds; round++) {
    for (const name of round % 2 ? ['whole', 'streamed'] : ['streamed', 'whole']) {
      const before = await cpuUsageMicros(child)
      const run = await timeToHead(url, pages[name])
      runs[name].push({ ...run, cpuMicros: (await cpuUsageMicros(child) - before) / Math.max(1, run.requests) })
    }
  }
  child.kill('SIGTERM')
  const pooled = (name, key) => runs[name].flatMap((run) => run[key])
  const heads = pooled('streamed', 'headMs')
  const sum = (name, key) => runs[name].reduce((total, run) => total + run[key], 0)
  const timing = {
    requests: sum('streamed', 'requests'),
    errors: sum('streamed', 'errors') + sum('whole', 'errors'),
    badStatus: sum('streamed', 'badStatus') + sum('whole', 'badStatus'),
    p50: percentile(heads, 0.5),
    p99: percentile(heads, 0.99),
    wholePageP50: percentile(pooled('streamed', 'totalMs'), 0.5)
  }
  const cost = streamCostStatus(runs.streamed.map((run) => run.cpuMicros), runs.whole.map((run) => run.cpuMicros), TARGETS.streamCost)
  return {
    connections: TARGETS.timeToHead.connections,
    timeToHead: { ...timing, target: TARGETS.timeToHead, status: timeToHeadStatus(timing, TARGETS.timeToHead) },
    cpu: {
      streamedMicrosByRound: runs.streamed.map((run) => Math.round(run.cpuMicros)),
      wholeMicrosByRound: runs.whole.map((run) => Math.round(run.cpuMicros)),
      ratio: round2(cost.ratio),
      target: TARGETS.streamCost,
      status: cost.status
    }
  }
}

async function measureMixed (app) {
  await load(app, MIXED, { stopAfter: MIXED.warmupRequests, seconds: 60 })
  const before = await cacheOutcomes(app.child)
  const run = await load(app, MIXED, { seconds: MIXED.seconds })
  const kinds = combineTallies(await cacheOutcomes(app.child), before, -1)
  const popular = hitRatio(kinds.popular ?? { hit: 0, miss: 0, bypass: 0 })
  const met = popular !== null && popular > MIXED.popularHitTarget && run.errors === 0 && run.badStatus === 0
  return { rps: Math.round(run.rps), errors: run.errors, badStatus: run.badStatus, kinds, popularHitRatio: popular, uniqueHitRatio: hitRatio(kinds.unique ?? { hit: 0, miss: 0, bypass: 0 }), target: MIXED.popularHitTarget, met }
}

/** Each server goes first as often. */
function turnOrder (route, round) {
  const names = ['app', 'ceiling', ...(PEERS && route.peer ? ['peer'] : [])]
  const first = round % names.length
  return [...names.slice(first), ...names.slice(0, first)]
}

async function main () {
  execFileSync(process.execPath, ['build/cli.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' })
  ensureWrk()
  if (PEERS) await preparePeer()
  const cores = coresForRun()

  let startup = null
  if (MEASURE_STARTUP) {
    console.log(`start-up: ${STARTS} starts of the built app`)
    startup = await measureStartup()
  }
  const streaming = MEASURE_STREAMING ? await measureStreaming() : null
  if (ROUTES.length === 0) {
    // BENCH_ONLY named start-up or streaming alone: no server to compare, nothing written.
    printStreamingAndStartup(streaming, startup)
    return [streaming?.timeToHead.status, streaming?.cpu.status, startup?.status].every((status) => status === undefined || status === 'met')
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
  if (PEERS) {
    const { url, child } = await startServer(PEER_SERVER)
    await checkPeer(url)
    servers.peer = { url, pid: child.pid, child }
  }

  const fixtures = await captureFixtures(appUrl)
  const fixturesPath = join(root, 'bench/results/fixtures.json')
  await mkdir(dirname(fixturesPath), { recursive: true })
  await writeFile(fixturesPath, JSON.stringify(fixtures))
  for (const [name, kind] of [['ceiling', 'fastify'], ['bare', 'http'], ['reply', 'reply']]) {
    const port = await freePort()
    const child = pinned(SERVER_CORE, [join(root, 'bench/ceiling.mjs'), fixturesPath, String(port), kind], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    await once(child, 'message')
    servers[name] = { url: `http://127.0.0.1:${port}`, pid: child.pid, child }
  }
  const serverOf = (route, name) => name === 'app' ? servers[route.server ?? 'app'] : servers[name]

  console.log(`warming up (${WARMUP} s per route and server)`)
  for (const route of ROUTES) {
    for (const name of CHECK_ONLY ? ['ceiling', 'bare', 'reply'] : ['app', 'ceiling', 'bare', 'reply', 'peer']) {
      if (((name === 'bare' || name === 'reply') && route.server) || (name === 'peer' && !(PEERS && route.peer))) continue
      await load(serverOf(route, name), route, { seconds: WARMUP })
    }
  }

  console.log(`checking the ceiling against Node's http server at ${CHECK_CONNECTIONS.join(' and ')} connections`)
  const ceilingChecks = {}
  for (const route of ROUTES.filter((route) => !route.server)) ceilingChecks[route.name] = await checkCeiling(route, servers)
  if (CHECK_ONLY) {
    // The check alone, while working on the ceiling: printed, nothing written.
    printCeilingChecks(ceilingChecks)
    return Object.values(ceilingChecks).every((check) => check.valid)
  }

  const runs = Object.fromEntries(ROUTES.map((route) => [route.name, { app: [], ceiling: [], peer: [] }]))
  const cacheTallies = Object.fromEntries(ROUTES.map((route) => [route.name, {}]))
  const memory = []
  for (let round = 1; round <= ROUNDS; round++) {
    for (const route of ROUTES) {
      for (const name of turnOrder(route, round)) {
        const probed = name === 'app' ? serverOf(route, 'app').child : null
        const before = probed ? await cacheOutcomes(probed) : null
        runs[route.name][name].push(await load(serverOf(route, name), route))
        if (probed) cacheTallies[route.name] = combineTallies(cacheTallies[route.name], combineTallies(await cacheOutcomes(probed), before, -1))
      }
    }
    memory.push(Number((await rssMiB(app.pid)).toFixed(1)))
    console.log(`round ${round}/${ROUNDS} done, app resident memory ${memory.at(-1)} MiB`)
  }

  const rpsOf = (name, side) => runs[name][side].map((run) => run.rps)
  const routes = {}
  for (const route of ROUTES) {
    const appSummary = summarize(runs[route.name].app)
    const ceilingSummary = summarize(runs[route.name].ceiling)
    const ratio = round3(pairedRatio(rpsOf(route.name, 'app'), rpsOf(route.name, 'ceiling')))
    const bound = { app: generatorBound(appSummary), ceiling: generatorBound(ceilingSummary) }
    const status = targetStatus(ratio, route.target, appSummary, bound.ceiling)
    const cache = totalTally(cacheTallies[route.name])
    routes[route.name] = { app: appSummary, ceiling: ceilingSummary, ratio, target: route.target, status, met: status === 'met', generatorBound: bound, cache: { ...cache, hitRatio: hitRatio(cache) } }
    if (runs[route.name].peer.length > 0) {
      const peer = summarize(runs[route.name].peer)
      routes[route.name].peer = { ...peer, ofCeiling: round3(pairedRatio(rpsOf(route.name, 'peer'), rpsOf(route.name, 'ceiling'))), appOverPeer: round3(pairedRatio(rpsOf(route.name, 'app'), rpsOf(route.name, 'peer'))) }
      bound.peer = generatorBound(peer)
    }
    if (route.costOver && runs[route.costOver]) {
      routes[route.name].costMicrosPerRequest = Number(pairedCost(runs[route.name].app.map((run) => run.cpuMicros), runs[route.costOver].app.map((run) => run.cpuMicros)).toFixed(1))
    }
  }
  if (servers.metrics) {
    const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    if (!/^http_request_duration_seconds_count\{[^}]*route="\/"[^}]*\} [1-9]/m.test(scraped)) throw new Error('the metrics variant counted no GET /: were metrics on?')
  }
  const memoryHeldFlat = memoryFlat(memory)

  const mixed = process.env.BENCH_ONLY ? null : await measureMixed(servers.app)

  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'))
  const sizes = await sizesOf(manifest)
  const javascript = { shellKiB: kib(sizes.shell.gzip), withHeaviestPageKiB: kib(sizes.initial.gzip) }
  const client = {
    initial: { raw: kib(sizes.initial.raw), gzip: kib(sizes.initial.gzip), brotli: kib(sizes.initial.brotli) },
    shell: { gzip: kib(sizes.shell.gzip) },
    heaviestPage: { id: sizes.heaviestPage.id, gzip: kib(sizes.heaviestPage.gzip) },
    tracker: { raw: kib(sizes.tracker.raw), gzip: kib(sizes.tracker.gzip), brotli: kib(sizes.tracker.brotli) },
    budgets: TARGETS.javascript,
    status: javascriptStatus(javascript, TARGETS.javascript)
  }

  const statuses = [
    ...Object.values(routes).map((route) => route.status),
    memoryHeldFlat ? 'met' : 'missed',
    client.status,
    startup?.status ?? 'met',
    mixed === null || mixed.met ? 'met' : 'missed',
    streaming?.timeToHead.status ?? 'met',
    streaming?.cpu.status ?? 'met'
  ]
  const verdict = runVerdict(Object.values(ceilingChecks), statuses)

  printTable(routes, ceilingChecks, memory, memoryHeldFlat, client, startup, mixed, streaming, verdict)

  const results = {
    date: new Date().toISOString(),
    kind: SHORT ? 'short: a trial of the bench, not a result' : 'full',
    node: process.version,
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', idle: cores.idle },
    generator: { tool: 'wrk', threads: 1, connections: CONNECTIONS, checkConnections: CHECK_CONNECTIONS, core: GENERATOR_CORE, serverCore: SERVER_CORE },
    coresHeldAwake: cores.held,
    rounds: ROUNDS,
    durationSeconds: DURATION,
    targets: TARGETS,
    verdict,
    ceilingChecks,
    startup,
    streaming,
    routes,
    mixed,
    memory: { rssAfterRoundMiB: memory, flat: memoryHeldFlat },
    client
  }
  const resultsFile = SHORT ? 'bench/results/short.json' : 'bench/results/latest.json'
  await writeFile(join(root, resultsFile), JSON.stringify(results, null, 2) + '\n')
  // Only full runs go into the history: a short run is a trial of the bench.
  if (!SHORT) await appendFile(join(root, 'bench/HISTORY.md'), historyLine(results))
  console.log(`\nwritten to ${resultsFile}${SHORT ? '' : ' and bench/HISTORY.md'}`)
  return verdict === 'met'
}

const round3 = (value) => Number(value.toFixed(3))
const percent = (ratio) => ratio === null || ratio === undefined ? '—' : `${(ratio * 100).toFixed(1)}%`

function historyLine (results) {
  const { routes, startup, streaming, mixed, memory, client, verdict } = results
  const line = Object.entries(routes).map(([name, { app, ratio, status, costMicrosPerRequest, peer }]) => {
    const cost = costMicrosPerRequest === undefined ? '' : `, ${costMicrosPerRequest} µs CPU per request over GET /`
    const beside = peer ? `, ${percent(peer.appOverPeer)} of React Router's` : ''
    return `${name} ${app.rps} rps (${Math.round(ratio * 100)}% of ceiling${status === 'unproven' ? ', ceiling generator-bound' : ''}${beside}${cost})`
  }).join('; ')
  const parts = [
    `${results.date.slice(0, 16).replace('T', ' ')} UTC, ${results.node}, wrk ${results.generator.connections} connections, cores ${results.coresHeldAwake ? 'held awake' : 'free to idle'}: ${line}`,
    streaming && `streamed page time to head p50 ${streaming.timeToHead.p50} ms, p99 ${streaming.timeToHead.p99} ms, CPU ${streaming.cpu.ratio}× whole`,
    mixed && `popular hit ratio under 10 % unique ${percent(mixed.popularHitRatio)}`,
    startup && `start-up ${startup.medianReadyMs} ms, first GET / ${startup.medianFirstPageMs} ms (medians of ${startup.readyMs.length})`,
    `memory ${memory.rssAfterRoundMiB[0]} → ${memory.rssAfterRoundMiB.at(-1)} MiB over ${memory.rssAfterRoundMiB.length} rounds (${memory.flat ? 'flat' : 'GROWING'})`,
    `initial JS: shell ${client.shell.gzip} KiB, with the heaviest page ${client.initial.gzip} KiB gzip`
  ].filter(Boolean)
  return `- ${parts.join('; ')}${verdict === 'met' ? '' : verdict === 'void' ? ` — VOID (ceiling below ${CEILING_SHARE_OF_BARE * 100} % of bare http)` : ' — TARGETS MISSED'}\n`
}

const STATUS_WORDS = { met: 'met', missed: 'MISSED', unproven: 'UNPROVEN (ceiling generator-bound)' }

function printRows (rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  console.log('')
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column])).join('  '))
}

function printTable (routes, ceilingChecks, memory, memoryHeldFlat, client, startup, mixed, streaming, verdict) {
  const rows = [['route', 'server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx/3xx', 'cache hits', '÷ ceiling', 'app ÷ peer', 'target']]
  for (const [name, route] of Object.entries(routes)) {
    for (const side of ['app', 'ceiling', 'peer']) {
      const summary = route[side]
      if (!summary) continue
      rows.push([
        side === 'app' ? name : '',
        side === 'peer' ? 'React Router 7' : side + (route.generatorBound[side] ? ' (generator-bound)' : ''),
        String(summary.rps), String(summary.p50), String(summary.p99), String(summary.errors), String(summary.badStatus),
        side === 'app' ? percent(route.cache.hitRatio) : '',
        side === 'app' ? percent(route.ratio) : side === 'peer' ? percent(summary.ofCeiling) : '',
        side === 'app' && route.peer ? `${route.peer.appOverPeer.toFixed(2)}×` : '',
        side === 'app' ? `≥ ${route.target * 100}% ${STATUS_WORDS[route.status]}` : ''
      ])
    }
  }
  printRows(rows)
  for (const [name, route] of Object.entries(routes)) {
    if (route.costMicrosPerRequest !== undefined) console.log(`\n${name}: ${route.costMicrosPerRequest} µs more CPU per request than without (median of the rounds' differences)`)
  }

  printCeilingChecks(ceilingChecks)

  printStreamingAndStartup(streaming, null)
  if (mixed) {
    console.log(`\n${MIXED.name} (app alone, ${MIXED.seconds} s): ${mixed.rps} req/s, popular pages served from the cache ${percent(mixed.popularHitRatio)} (target > ${MIXED.popularHitTarget * 100}%: ${mixed.met ? 'met' : 'MISSED'}), unique ${percent(mixed.uniqueHitRatio)}, errors ${mixed.errors}, non-2xx/3xx ${mixed.badStatus}`)
  }
  printStreamingAndStartup(null, startup)
  console.log(`app resident memory after each round: ${memory.join(' → ')} MiB (${memoryHeldFlat ? 'flat' : 'GROWING'})`)
  console.log(`initial JavaScript, gzip as served: shell ${client.shell.gzip} KiB (budget ${client.budgets.shellKiB}), with the heaviest page "${client.heaviestPage.id}" ${client.initial.gzip} KiB (budget ${client.budgets.withHeaviestPageKiB}): ${STATUS_WORDS[client.status]}; ${client.initial.raw} KiB raw, ${client.initial.brotli} KiB brotli`)
  console.log(`tracker chunk:      ${client.tracker.raw} KiB raw, ${client.tracker.gzip} KiB gzip, ${client.tracker.brotli} KiB brotli (loaded after hydration)`)
  const verdictWords = {
    met: 'every target met',
    missed: 'TARGETS MISSED',
    void: `VOID: the ceiling reached less than ${CEILING_SHARE_OF_BARE * 100} % of Node's bare http server replaying the same bytes, so its ratios prove nothing`
  }
  console.log(`\nverdict: ${verdictWords[verdict]}${SHORT ? ' (a short run: a trial of the bench, not a result)' : ''}`)
}

function printCeilingChecks (ceilingChecks) {
  const rows = [['ceiling check', ...CHECK_CONNECTIONS.map((count) => `ceiling @${count}`), ...CHECK_CONNECTIONS.map((count) => `bare http @${count}`), 'ceiling ÷ bare', `≥ ${CEILING_SHARE_OF_BARE * 100}%`, 'CPU µs/request, ceiling / bare', `Fastify reply @${CONNECTIONS}`, '÷ ceiling']]
  for (const [name, check] of Object.entries(ceilingChecks)) {
    rows.push([name, ...CHECK_CONNECTIONS.map((count) => String(check.ceiling[count])), ...CHECK_CONNECTIONS.map((count) => String(check.bare[count])), percent(check.share), check.valid ? 'ok' : 'VOID', `${check.cpuMicros.ceiling} / ${check.cpuMicros.bare}`, String(check.reply.rps), percent(check.reply.ofCeiling)])
  }
  printRows(rows)
  console.log(`Fastify reply: the same bytes sent through reply.code().headers().send(), no plugins; what any Fastify route keeps of the ceiling`)
}

function printStreamingAndStartup (streaming, startup) {
  if (streaming) {
    const { timeToHead, cpu } = streaming
    console.log(`\nstreamed page (data takes 1 s), ${streaming.connections} connections: time to head p50 ${timeToHead.p50} ms, p99 ${timeToHead.p99} ms over ${timeToHead.requests} requests (target p50 < ${timeToHead.target.p50Ms}, p99 < ${timeToHead.target.p99Ms}: ${STATUS_WORDS[timeToHead.status]}); whole document p50 ${timeToHead.wholePageP50} ms; errors ${timeToHead.errors}, bad status ${timeToHead.badStatus}`)
    console.log(`render CPU per streamed request ÷ the same page rendered whole: ${cpu.ratio}× (${cpu.streamedMicrosByRound.join(', ')} µs ÷ ${cpu.wholeMicrosByRound.join(', ')} µs; target ≤ ${cpu.target}×: ${STATUS_WORDS[cpu.status]})`)
  }
  if (startup) {
    console.log(`start-up to readiness: median ${startup.medianReadyMs} ms of ${startup.readyMs.length} (${startup.readyMs.join(', ')}) (target ≤ ${startup.targetMs} ms: ${STATUS_WORDS[startup.status]})`)
    console.log(`the server's CPU time to readiness, all threads: median ${startup.medianReadyCpuMs} ms (${startup.readyCpuMs.join(', ')}); rising with the wall time, the host computes slower; the wall alone, it wakes slower`)
    console.log(`first GET / after start: median ${startup.medianFirstPageMs} ms (${startup.firstPageMs.join(', ')})`)
  }
}

/** Prints whether the cores are held, since it moves every ratio. */
function coresForRun () {
  const cores = process.env.BENCH_CORES_IDLE === '1' ? { held: false, why: 'BENCH_CORES_IDLE=1' } : holdCoresAwake()
  const why = cores.why ?? `${cores.device} could not be written: ${cores.reason}`
  const idle = idleCondition()
  const idles = `idle driver ${idle.driver ?? 'unknown'}${idle.haltPollNs === null ? '' : `, polling ${idle.haltPollNs} ns before halting`}`
  console.log(cores.held ? `cores held out of idle for the run (${cores.device} = 0 µs; ${idles})` : `cores free to idle (${why}; ${idles}): each answer pays for waking an idle generator`)
  return { ...cores, idle }
}

await runMain('bench', main)
