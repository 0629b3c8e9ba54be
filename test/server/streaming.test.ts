import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { setTimeout } from 'node:timers/promises'
import t from 'tap'
import { createElement } from 'react'
import { DEFERRED_TIMED_OUT, DeferredError, type DeferredOutcome } from '../../src/shared/deferred.js'
import { DIST_DIR } from '../../src/server/app.js'
import { pageAssets } from '../../src/server/rendering/assets.js'
import { defineLoader, type PageLoader } from '../../src/server/screens/index.js'
import { Await } from '../../src/ui/await.js'
import { defineScreen, type ScreenView } from '../../src/ui/define-screen.js'
import { build, cacheOutcome, inlineScripts, pageData } from '../helpers/app.js'
import { labelValues, scrape, valueOf } from '../helpers/metrics.js'
import { screen } from '../helpers/screens.js'
import { listen } from '../helpers/server.js'
import { gate, openStreamed } from '../helpers/streamed-response.js'
import weather, { type Forecast, type WeatherData } from '../fixtures/streaming/weather.js'
import { loader as weatherLoader } from '../fixtures/streaming/weather.server.js'

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'
/** A browser that ran our scripts: only a script sets the client-hint cookies. */
const RUNS_SCRIPTS = { accept: 'text/html', 'user-agent': BROWSER, cookie: 'CH-time-zone=Europe%2FLisbon; CH-prefers-color-scheme=light' }
/** A first visit, or a browser whose scripts do not run: nothing shows that they do. */
const FIRST_VISIT = { accept: 'text/html', 'user-agent': BROWSER }
const BOT = { accept: 'text/html', 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }

const HEAD_AND_FALLBACK = /<\/head>[\s\S]*<h1>Weather in Lisbon<\/h1>[\s\S]*Loading the forecast…/
const FORECAST_SHOWN = /<p class="forecast">Sunny, 21 °C<\/p>/

/** The app's options with the weather screen, loaded by `loader`. */
function withWeather (loader: PageLoader<WeatherData> = weatherLoader, view: ScreenView<WeatherData> = weather) {
  return { screens: { weather: screen(view, { loader }) } }
}

/** The weather page with a forecast the test lets through; `signals` collects each request's loader signal. */
function gatedWeather () {
  const forecast = gate<Forecast>()
  const signals: AbortSignal[] = []
  let loads = 0
  const loader = defineLoader<WeatherData>(({ signal }) => {
    loads++
    signals.push(signal)
    return { city: 'Lisbon', forecast: forecast.promise }
  })
  return { forecast, signals, loads: () => loads, options: withWeather(loader) }
}

/** The outcomes a document hands the browser for its deferred parts, in order. */
function deferredOutcomes (html: string): Array<[string, DeferredOutcome]> {
  return inlineScripts(html).flatMap(({ body }) => {
    const pushed = /^\(self\.__DEFERRED__=self\.__DEFERRED__\|\|\[\]\)\.push\((.*)\)$/.exec(body)?.[1]
    return pushed ? [JSON.parse(pushed) as [string, DeferredOutcome]] : []
  })
}

for (const encoding of ['br', 'gzip', 'identity']) {
  t.test(`${encoding}: the headers and the head leave before the deferred data, which follows in the same response`, async (t) => {
    const { forecast, loads, options } = gatedWeather()
    const { url } = await listen(t, options)
    const response = openStreamed(`${url}/weather`, { ...RUNS_SCRIPTS, 'accept-encoding': encoding })
    const { status, headers } = await response.headers
    t.equal(status, 200)
    t.equal(headers['content-encoding'], encoding === 'identity' ? undefined : encoding)
    t.equal(headers['accept-ch'], 'Sec-CH-Prefers-Color-Scheme', 'Accept-CH is among the first bytes')
    t.match(headers['server-timing'], /delivery;desc=streamed/)
    const shell = await response.waitFor(HEAD_AND_FALLBACK)
    t.notMatch(shell, FORECAST_SHOWN, 'the forecast has not come yet')
    forecast.open({ summary: 'Sunny, 21 °C' })
    const whole = await response.ended
    t.match(whole, FORECAST_SHOWN, 'then the forecast, in the same response')
    t.same(deferredOutcomes(whole), [['forecast', { ok: true, value: { summary: 'Sunny, 21 °C' } }]], 'with its value for hydration')
    t.same(pageData(whole).page, { id: 'weather', status: 200, data: { city: 'Lisbon' }, deferred: ['forecast'] }, 'the page data names the deferred part')
    t.equal(loads(), 1, 'the loader ran once')
  })
}

/** How many writes the server's sockets have made so far: each one wakes the client, and costs the server a send. */
function socketWrites (server: Server): () => number {
  let writes = 0
  server.on('connection', (socket: Socket) => {
    const { _write: write, _writev: writev } = socket
    socket._write = (...args) => { writes++; write.apply(socket, args) }
    if (writev) socket._writev = (...args) => { writes++; writev.apply(socket, args) }
  })
  return () => writes
}

for (const encoding of ['br', 'gzip', 'identity']) {
  t.test(`${encoding}: a streamed document leaves in two writes: the shell, then the part with its script and the response's end`, async (t) => {
    const { forecast, options } = gatedWeather()
    const { app, url } = await listen(t, options)
    const writes = socketWrites(app.server)
    const response = openStreamed(`${url}/weather`, { ...RUNS_SCRIPTS, 'accept-encoding': encoding })
    await response.waitFor(HEAD_AND_FALLBACK)
    t.equal(writes(), 1, 'the headers and the shell')
    forecast.open({ summary: 'Sunny, 21 °C' })
    const whole = await response.ended
    t.equal(writes(), 2, 'then the rest')
    t.match(whole, /<script nonce="[\w-]+">\(self\.__DEFERRED__[^<]*<\/script><div hidden id="S:0"><p class="forecast">/, 'the part\'s script just before the part')
  })
}

for (const encoding of ['br', 'gzip', 'identity']) {
  t.test(`${encoding}: a first visit's document leaves in two writes: its start, then the rest with the response's end`, async (t) => {
    const { forecast, options } = gatedWeather()
    const { app, url } = await listen(t, options)
    const writes = socketWrites(app.server)
    const response = openStreamed(`${url}/weather`, { ...FIRST_VISIT, 'accept-encoding': encoding })
    await response.waitFor(/<h1>Weather in Lisbon<\/h1>/)
    t.equal(writes(), 1, 'the headers, the head and the body up to the part that waits')
    forecast.open({ summary: 'Sunny, 21 °C' })
    t.match(await response.ended, FORECAST_SHOWN)
    t.equal(writes(), 2, 'then the rest')
  })
}

for (const encoding of ['br', 'gzip', 'identity']) {
  t.test(`${encoding}: a first visit gets its headers, head and the body up to the pending part at once, then the rest in place, without script to move it`, async (t) => {
    const { forecast, options } = gatedWeather()
    const { url } = await listen(t, options)
    const response = openStreamed(`${url}/weather`, { ...FIRST_VISIT, 'accept-encoding': encoding })
    const { headers } = await response.headers
    t.equal(headers['critical-ch'], undefined, 'no Critical-CH: Chromium does not abandon the request to retry it with its hint')
    t.match(headers['server-timing'], /delivery;desc=held/)
    const start = await Promise.race([response.waitFor(/<h1>Weather in Lisbon<\/h1>/), setTimeout(5000, null, { ref: false }).then(() => { throw new Error('no page start within 5 s, while the data waits') })])
    t.match(start, /^<!DOCTYPE html><html lang="en" class="light"[^>]*><head><meta charSet="utf-8"\/>[\s\S]*<title>Weather in Lisbon \| Agent Stack<\/title>[\s\S]*<link rel="stylesheet" href="\/assets\/styles-[\w-]+\.css"\/>[\s\S]*<\/head><body>/,
      'the doctype, <html> and the whole head, with its title and stylesheet, before the data')
    t.match(start, /<main><h1>Weather in Lisbon<\/h1>$/, 'then the body, up to the part that waits')
    await setTimeout(100)
    t.notMatch(response.text, /Loading the forecast/, 'and not its fallback, which a browser without scripts would keep')
    forecast.open({ summary: 'Sunny, 21 °C' })
    const whole = await response.ended
    t.ok(whole.startsWith(start), 'the rest follows what was sent')
    t.equal(whole.match(/<head>/g)?.length, 1, 'one head')
    t.equal(whole.match(/<\/head><body>/g)?.length, 1, 'then the body')
    t.match(whole, /<main><h1>Weather in Lisbon<\/h1><!--\$--><p class="forecast">Sunny, 21 °C<\/p><!--\/\$--><\/main>/, 'the forecast in place')
    t.notMatch(whole, /<template|hidden id=/, 'nothing left for a script to move')
    t.same(deferredOutcomes(whole), [['forecast', { ok: true, value: { summary: 'Sunny, 21 °C' } }]], 'and its value, for a browser that does run scripts')
  })
}

/** The weather screen, impure: it shows how many times it has rendered, so no two renders agree. */
function impureWeather (options: Partial<ScreenView<WeatherData>> = {}): ScreenView<WeatherData> {
  let renders = 0
  return defineScreen<WeatherData>({
    path: '/weather',
    ...options,
    component: ({ data }) => createElement('main', null,
      createElement('p', null, `Render ${++renders}`),
      createElement(Await<Forecast>, { resolve: data.forecast, fallback: 'Loading the forecast…', error: (message: string) => message, children: (value: Forecast) => createElement('p', { className: 'forecast' }, value.summary) }))
  })
}

t.test('a held page whose start renders differently the second time (an impure component) still arrives whole, and the server says why', async (t) => {
  const forecast = gate<Forecast>()
  const impure = impureWeather()
  const { app, logs } = await build(t, { ...withWeather(defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: forecast.promise })), impure), allowErrorLogs: true })
  const response = app.inject({ url: '/weather', headers: FIRST_VISIT })
  await setTimeout(50)
  forecast.open({ summary: 'Sunny, 21 °C' })
  const { statusCode, body } = await response
  t.equal(statusCode, 200)
  t.match(body, /<\/head><body>[\s\S]*<main><p>Render \d<\/p><body><header class="site-header">[\s\S]*<main><p>Render \d<\/p><!--\$--><p class="forecast">Sunny, 21 °C<\/p><!--\/\$--><\/main>/,
    'the start sent, then the whole body as the other render made it: nothing is lost')
  t.match(logs.filter((entry) => entry.level >= 50).map((entry) => entry.msg), [/rendered differently the second time/], 'logged as an error')
})

// A shared cache keys a document by what it varies on: one streamed in gzip must never reach a client that takes none.
t.test('a document that waits names Accept-Encoding in Vary, beside Cookie, under every delivery and encoding', async (t) => {
  const soon = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: new Promise<Forecast>((resolve) => setImmediate(() => resolve({ summary: 'Sunny, 21 °C' }))) }))
  const { app } = await build(t, withWeather(soon))
  for (const [delivery, headers] of [['streamed', RUNS_SCRIPTS], ['held', FIRST_VISIT]] as const) {
    for (const encoding of ['br', 'gzip', 'identity']) {
      const response = await app.inject({ url: '/weather', headers: { ...headers, 'accept-encoding': encoding } })
      t.match(response.headers['server-timing'], `delivery;desc=${delivery}`, `${delivery}, ${encoding}: it waited`)
      const vary = String(response.headers.vary).split(',').map((field) => field.trim().toLowerCase())
      t.ok(vary.includes('accept-encoding') && vary.includes('cookie'), `${delivery}, ${encoding}: Vary is ${response.headers.vary}`)
    }
  }
})

// A thenable may call back as soon as it is asked (some query builders do): its part settles before the render
// listens for parts, and its outcome must still reach the browser, which hydrates from it.
t.test('a part that settles as the loader returns (a thenable that calls back at once) still reaches the browser', async (t) => {
  const atOnce = { then: (resolve: (value: Forecast) => void) => resolve({ summary: 'Sunny, 21 °C' }) } as unknown as Promise<Forecast>
  const { app } = await build(t, withWeather(defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: atOnce }))))
  for (const headers of [RUNS_SCRIPTS, FIRST_VISIT, BOT]) {
    const response = await app.inject({ url: '/weather', headers })
    t.match(response.body, FORECAST_SHOWN)
    t.same(deferredOutcomes(response.body), [['forecast', { ok: true, value: { summary: 'Sunny, 21 °C' } }]], 'with its value for hydration')
  }
})

// Kept, its start and then its whole body again would be every later visitor's document.
t.test('a held page that renders differently the second time is never kept, though its page says cacheDeferred', async (t) => {
  const impure = impureWeather({ cacheDeferred: true })
  const soon = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: new Promise<Forecast>((resolve) => setImmediate(() => resolve({ summary: 'Sunny, 21 °C' }))) }))
  const { app, logs } = await build(t, { ...withWeather(soon, impure), allowErrorLogs: true })
  for (let visit = 0; visit < 3; visit++) {
    const response = await app.inject({ url: '/weather', headers: FIRST_VISIT })
    t.match(response.body, FORECAST_SHOWN)
    t.equal(cacheOutcome(response), 'miss', 'rendered again each time')
  }
  t.equal(app.renderCache.size, 0, 'nothing kept')
  t.equal(logs.filter((entry) => entry.level >= 50 && /rendered differently the second time/.test(String(entry.msg))).length, 3, 'each render said why')
})

t.test('a bot gets the whole document in one piece', async (t) => {
  const { forecast, options } = gatedWeather()
  const { app } = await build(t, options)
  forecast.open({ summary: 'Sunny, 21 °C' })
  const response = await app.inject({ url: '/weather', headers: BOT })
  t.equal(response.statusCode, 200)
  t.match(response.body, /<!--\$--><p class="forecast">Sunny, 21 °C<\/p><!--\/\$-->/)
  t.notOk(response.headers['transfer-encoding'], 'not chunked')
  t.notMatch(String(response.headers['server-timing']), /delivery/)
})

t.test('either client-hint cookie alone shows that the browser runs scripts: its document is streamed, not held', async (t) => {
  for (const cookie of ['CH-time-zone=Europe%2FLisbon', 'CH-prefers-color-scheme=light']) {
    const { forecast, options } = gatedWeather()
    const { url } = await listen(t, options)
    const response = openStreamed(`${url}/weather`, { ...FIRST_VISIT, cookie })
    t.match((await response.headers).headers['server-timing'], /delivery;desc=streamed/, cookie)
    forecast.open({ summary: 'Sunny, 21 °C' })
    t.match(await response.ended, FORECAST_SHOWN)
  }
})

t.test('a rejected part shows its error in place, in words for the visitor, logged once with the request id; the status stays 200', async (t) => {
  const { app, logs } = await build(t, { ...withWeather(), allowErrorLogs: true, env: { TRUST_PROXY: 'loopback' } })
  for (const [name, headers] of Object.entries({ streamed: RUNS_SCRIPTS, held: FIRST_VISIT, bot: BOT })) {
    const requestId = `rejected-${name}`
    const response = await app.inject({ url: '/weather?delay=0&fail', headers: { ...headers, 'x-request-id': requestId } })
    t.equal(response.statusCode, 200, `${name}: 200`)
    const message = 'The forecast service is not answering. Please try again in a few minutes.'
    t.same(deferredOutcomes(response.body), [['forecast', { ok: false, message }]], `${name}: the browser is told why`)
    if (name !== 'streamed') t.match(response.body, `<p role="alert">${message}</p>`, `${name}: the error shows in place`)
    else t.match(response.body, `<div hidden id="S:0"><p role="alert">${message}</p></div>`, `${name}: the error streams in`)
    const logged = logs.filter((entry) => entry.level >= 50 && entry.requestId === requestId)
    t.equal(logged.length, 1, `${name}: logged once`)
    t.equal(logged[0]?.part, 'forecast', `${name}: naming the part`)
  }
})

t.test('a part that fails with an internal error shows general words: its message stays on the server', async (t) => {
  const loader = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:5432')) }))
  const { app } = await build(t, { ...withWeather(loader), allowErrorLogs: true })
  const response = await app.inject({ url: '/weather', headers: FIRST_VISIT })
  t.notMatch(response.body, /ECONNREFUSED|10\.0\.0\.7/)
  t.match(response.body, '<p role="alert">This part of the page could not be loaded. Please reload the page to try again.</p>')
})

t.test('a client that leaves mid-stream stops the render, and its loader sees its signal fire; nothing is logged as an error', async (t) => {
  const { signals, options } = gatedWeather()
  const { url, logs } = await listen(t, options)
  const response = openStreamed(`${url}/weather`, { ...RUNS_SCRIPTS, 'accept-encoding': 'gzip' })
  await response.waitFor(HEAD_AND_FALLBACK)
  const [signal] = signals
  t.equal(signal?.aborted, false)
  const fired = new Promise((resolve) => signal?.addEventListener('abort', resolve))
  response.abandon()
  await fired
  t.equal(signal?.reason?.name, 'ClientGoneError')
  t.ok(logs.some((entry) => entry.msg === 'the client went away: rendering stopped' && entry.level === 30), 'an info line says so')
})

// React's development build said "There was still abortable task at the root when we closed. This is a bug in React."
// each time: the held document was piped into a response already gone, after the abort had settled its boundaries.
t.test('a first visit that leaves while its document is held stops the render, and nothing is written after it', async (t) => {
  const { signals, options } = gatedWeather()
  const { url, logs } = await listen(t, options)
  const said: unknown[][] = []
  const { error } = console
  console.error = (...args: unknown[]) => { said.push(args) }
  t.teardown(() => { console.error = error })
  const response = openStreamed(`${url}/weather`, FIRST_VISIT)
  await response.waitFor(/<\/head>/)
  const [signal] = signals
  const fired = new Promise((resolve) => signal?.addEventListener('abort', resolve))
  response.abandon()
  await fired
  await setTimeout(50)
  t.equal(signal?.reason?.name, 'ClientGoneError')
  t.same(said, [], 'nothing on the console')
  t.ok(logs.some((entry) => entry.msg === 'the client went away: rendering stopped' && entry.level === 30), 'an info line says so')
})

t.test('a client that leaves mid-stream is counted as abandoned, apart from the responses that ended', async (t) => {
  const { signals, options } = gatedWeather()
  const { url, app } = await listen(t, { ...options, env: { METRICS_PORT: '0' } })
  t.equal((await fetch(`${url}/`, { headers: RUNS_SCRIPTS })).status, 200)
  const response = openStreamed(`${url}/weather`, RUNS_SCRIPTS)
  await response.waitFor(HEAD_AND_FALLBACK)
  const fired = new Promise((resolve) => signals[0]?.addEventListener('abort', resolve))
  response.abandon()
  await fired
  // The signal fires on the response's close; Fastify's abort hook runs on the request's, which may come a tick later.
  await new Promise((resolve) => setImmediate(resolve))
  const samples = await scrape(app)
  t.equal(valueOf(samples, 'http_requests_abandoned_total', { route: '/weather', method: 'GET', speculation: 'none' }), 1)
  t.same(labelValues(samples, 'http_requests_abandoned_total', 'route'), ['/weather'], 'the page that ended is not')
  t.same(labelValues(samples, 'http_request_duration_seconds_count', 'route'), ['/'], 'nor is the abandoned one timed as a response')
})

t.test('a pass larger than the socket takes at once still arrives whole, under every encoding and delivery', async (t) => {
  // Random, so it stays about 320 KB compressed too: far more than a socket buffers before it pushes back.
  const summary = randomBytes(240_000).toString('base64')
  const loader = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: new Promise<Forecast>((resolve) => setImmediate(() => resolve({ summary }))) }))
  const { url } = await listen(t, withWeather(loader))
  for (const [delivery, headers] of [['streamed', RUNS_SCRIPTS], ['held', FIRST_VISIT]] as const) {
    for (const encoding of ['br', 'gzip', 'identity']) {
      // The signal only keeps a regression from hanging the suite: it fails the test instead.
      const response = await fetch(`${url}/weather`, { headers: { ...headers, 'accept-encoding': encoding }, signal: AbortSignal.timeout(20_000) })
      t.equal(response.headers.get('content-encoding'), encoding === 'identity' ? null : encoding, `${delivery}, ${encoding}`)
      const html = await response.text()
      t.ok(html.includes(`<p class="forecast">${summary}</p>`), `${delivery}, ${encoding}: the part is in place`)
      t.match(html, /<\/html>/, 'and the document complete')
    }
  }
})

t.test('a part no boundary reads is sent when it settles, after React is done, and the response ends then', async (t) => {
  const later = gate<string>()
  const loader = defineLoader<WeatherData & { later: Promise<string> }>(() => ({ city: 'Lisbon', forecast: Promise.resolve({ summary: 'Sunny, 21 °C' }), later: later.promise }))
  const { url } = await listen(t, { screens: { weather: screen(weather, { loader }) } })
  for (const headers of [RUNS_SCRIPTS, FIRST_VISIT]) {
    const response = openStreamed(`${url}/weather`, headers)
    await response.waitFor(FORECAST_SHOWN)
    if (headers === RUNS_SCRIPTS) later.open('arrived')
    const html = await response.ended
    t.same(deferredOutcomes(html).map(([key]) => key).sort(), ['forecast', 'later'], 'both parts\' outcomes reach the browser')
    t.same(deferredOutcomes(html).find(([key]) => key === 'later')?.[1], { ok: true, value: 'arrived' })
  }
})

t.test('a part no boundary reads that never settles ends the response at the time limit, as timed out', async (t) => {
  const loader = defineLoader<WeatherData & { later: Promise<string> }>(() => ({ city: 'Lisbon', forecast: Promise.resolve({ summary: 'Sunny, 21 °C' }), later: gate<string>().promise }))
  const { url } = await listen(t, { screens: { weather: screen(weather, { loader }) }, env: { STREAM_TIME_LIMIT_MS: '100' } })
  const html = await openStreamed(`${url}/weather`, RUNS_SCRIPTS).ended
  t.match(html, FORECAST_SHOWN)
  t.same(deferredOutcomes(html).find(([key]) => key === 'later')?.[1], { ok: false, message: DEFERRED_TIMED_OUT })
})

t.test('a page that waits but whose shell fails gets the 500 document, and its error is logged once', async (t) => {
  const view = defineScreen<WeatherData>({ path: '/weather', meta: { title: 'Weather' }, component: () => { throw new Error('the shell broke') } })
  const loader = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: gate<Forecast>().promise }))
  const { app, logs } = await build(t, { screens: { weather: screen(view, { loader }) }, allowErrorLogs: true })
  const response = await app.inject({ url: '/weather', headers: RUNS_SCRIPTS })
  t.equal(response.statusCode, 500)
  t.same(logs.filter((entry) => entry.level >= 50).map((entry) => entry.msg), ['the document shell failed to render'])
})

// A limit left running past its response fired later on a finished page: a false warning, and the loader's signal
// aborted after the fact. Watched through the timers themselves, so the test waits for no clock.
t.test('a document that waited releases its time limit when its response ends, under every delivery', async (t) => {
  const limit = 98_765
  const running = new Set<unknown>()
  let started = 0
  const { setTimeout: set, clearTimeout: clear } = globalThis
  globalThis.setTimeout = ((callback: () => void, ms?: number) => {
    const timer = set(callback, ms)
    if (ms === limit) { started++; running.add(timer) }
    return timer
  }) as typeof globalThis.setTimeout
  globalThis.clearTimeout = ((timer: NodeJS.Timeout | undefined) => { running.delete(timer); clear(timer) }) as typeof globalThis.clearTimeout
  t.teardown(() => { globalThis.setTimeout = set; globalThis.clearTimeout = clear })
  const soon = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: new Promise<Forecast>((resolve) => setImmediate(() => resolve({ summary: 'Sunny, 21 °C' }))) }))
  const { url } = await listen(t, { ...withWeather(soon), env: { STREAM_TIME_LIMIT_MS: String(limit) } })
  for (const [delivery, headers] of [['streamed', RUNS_SCRIPTS], ['held', FIRST_VISIT], ['whole', BOT]] as const) {
    running.clear()
    const before = started
    t.match(await openStreamed(`${url}/weather`, headers).ended, FORECAST_SHOWN)
    t.equal(started, before + 1, `${delivery}: the document waited, under a time limit`)
    t.equal(running.size, 0, `${delivery}: which its end released`)
  }
})

t.test('past the time limit, a pending part shows as timed out, the loader\'s signal fires and the response ends', async (t) => {
  const { signals, options } = gatedWeather()
  const { app, logs } = await build(t, { ...options, env: { STREAM_TIME_LIMIT_MS: '100' } })
  for (const headers of [FIRST_VISIT, RUNS_SCRIPTS]) {
    const response = await app.inject({ url: '/weather', headers })
    t.equal(response.statusCode, 200)
    t.match(response.body, `<p role="alert">${DEFERRED_TIMED_OUT}</p>`)
    t.same(deferredOutcomes(response.body), [['forecast', { ok: false, message: DEFERRED_TIMED_OUT }]])
    t.match(response.body, /<\/html>/, 'the document is complete')
  }
  t.ok(signals.every((signal) => signal.aborted), 'each loader was told to stop')
  t.equal(logs.filter((entry) => entry.msg === 'the document reached its time limit' && entry.level === 40).length, 2, 'a warning for each')
})

t.test('a bad query is a 400 with a message a person can act on', async (t) => {
  const { app } = await build(t, withWeather())
  for (const delay of ['soon', '-1', '1.5', '600000']) {
    const response = await app.inject({ url: `/weather?delay=${delay}`, headers: FIRST_VISIT })
    t.equal(response.statusCode, 400, delay)
    t.match(response.body, 'The delay must be a whole number of milliseconds from 0 to 60000.')
  }
})

t.test('a part no boundary waits for still reaches the browser as it settles, not with the end of the document', async (t) => {
  // The page renders only the forecast; the tide is for code that reads it after hydration.
  const forecast = gate<Forecast>()
  const tide = gate<string>()
  const tidal = defineScreen<{ forecast: Promise<Forecast>, tide: Promise<string> }>({
    path: '/tidal',
    component: ({ data }) => createElement('main', null, createElement(Await<Forecast>, { resolve: data.forecast, fallback: 'Loading…', error: (message) => message, children: (settled) => settled.summary }))
  })
  const loader = defineLoader<{ forecast: Promise<Forecast>, tide: Promise<string> }>(() => ({ forecast: forecast.promise, tide: tide.promise }))
  const { url } = await listen(t, { screens: { tidal: screen(tidal, { loader }) } })
  const response = openStreamed(`${url}/tidal`, RUNS_SCRIPTS)
  await response.waitFor(/Loading…/)
  tide.open('High at 14:02')
  const sent = await response.waitFor(/High at 14:02/)
  t.same(deferredOutcomes(sent), [['tide', { ok: true, value: 'High at 14:02' }]], 'the tide\'s script, while the forecast still waits')
  forecast.open({ summary: 'Fog' })
  const whole = await response.ended
  t.same(deferredOutcomes(whole).map(([key]) => key), ['tide', 'forecast'], 'then the forecast\'s, with its part')
  t.match(whole, /Fog/)
})

t.test('a document with deferred parts preloads the store that takes them in the browser; one without does not', async (t) => {
  const { deferred } = JSON.parse(readFileSync(join(DIST_DIR, 'manifest.json'), 'utf8')) as { deferred: string[] }
  t.ok(deferred.length > 0, 'the build lists the store\'s chunks')
  const resolved = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: Promise.resolve({ summary: 'Sunny, 21 °C' }) }))
  const { app } = await build(t, withWeather(resolved))
  const preloads = (html: string) => [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((match) => match[1] ?? '')
  const weatherPage = await app.inject({ url: '/weather', headers: BOT })
  for (const href of deferred) t.ok(preloads(weatherPage.body).includes(href), `the weather page preloads ${href}`)
  const home = await app.inject({ url: '/', headers: BOT })
  t.same(preloads(home.body).filter((href) => deferred.includes(href)), [], 'the home page, which defers nothing, does not')
})

t.test('a chunk both a page and the store need is preloaded once; a page the build does not list, such as "constructor", preloads the shell\'s only', async (t) => {
  const assetsOf = pageAssets({ entry: '/entry.js', styles: ['/styles.css'], preloads: ['/shared.js'], pages: { notes: ['/notes.js', '/common.js'] }, deferred: ['/store.js', '/common.js'] })
  t.same(assetsOf('notes', true).preloads, ['/shared.js', '/notes.js', '/common.js', '/store.js'], 'with deferred parts')
  t.same(assetsOf('notes', false).preloads, ['/shared.js', '/notes.js', '/common.js'], 'without')
  for (const id of ['constructor', 'toString', 'unlisted']) t.same(assetsOf(id, false).preloads, ['/shared.js'], id)
})

t.test('a page with deferred data is rendered once, by the streaming renderer alone, and its loader runs once', async (t) => {
  let renders = 0
  const counted = defineScreen<{ forecast: Promise<Forecast> }>({
    path: '/counted',
    component: ({ data }) => {
      renders++
      return createElement('main', null, createElement(Await<Forecast>, { resolve: data.forecast, fallback: 'Loading…', error: (message) => message, children: (forecast) => forecast.summary }))
    }
  })
  let loads = 0
  const loader = defineLoader<{ forecast: Promise<Forecast> }>(() => { loads++; return { forecast: Promise.resolve({ summary: 'Fog' }) } })
  const { app } = await build(t, { screens: { counted: screen(counted, { loader }) } })
  for (const headers of [RUNS_SCRIPTS, FIRST_VISIT, BOT]) {
    renders = 0
    loads = 0
    const response = await app.inject({ url: '/counted', headers })
    t.match(response.body, 'Fog')
    t.equal(renders, 1, 'the page component ran once: no string render thrown away')
    t.equal(loads, 1)
  }
})

t.test('a document with deferred data is never served from the render cache, unless its page says it may be', async (t) => {
  const resolved = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: Promise.resolve({ summary: 'Sunny, 21 °C' }) }))
  const { app } = await build(t, withWeather(resolved))
  const outcomes = []
  for (let visit = 0; visit < 3; visit++) outcomes.push(cacheOutcome(await app.inject({ url: '/weather', headers: BOT })))
  t.same(outcomes, ['bypass', 'bypass', 'bypass'])
  t.equal(app.renderCache.size, 0)

  const { app: allowed } = await build(t, withWeather(resolved, { ...weather, cacheDeferred: true }))
  const answers = []
  for (let visit = 0; visit < 3; visit++) answers.push(await allowed.inject({ url: '/weather', headers: BOT }))
  t.same(answers.map(cacheOutcome), ['miss', 'miss', 'hit'])
  t.match(answers[2]?.body, FORECAST_SHOWN, 'served with its part in place')
  t.same(deferredOutcomes(answers[2]?.body ?? ''), [['forecast', { ok: true, value: { summary: 'Sunny, 21 °C' } }]])
})

// A hit shows the parts the document was kept with: the request's own slow work ran on in full behind every hit, and
// its failure was logged as an error of a page that had been served whole.
t.test('a document served from the render cache stops its own deferred parts: the loader\'s signal fires, and a failure is nobody\'s error', async (t) => {
  const signals: AbortSignal[] = []
  let down = false
  const loader = defineLoader<WeatherData>(({ signal }) => {
    signals.push(signal)
    const forecast = signals.length <= 2 ? Promise.resolve({ summary: 'Sunny, 21 °C' }) : new Promise<Forecast>((_resolve, reject) => signal.addEventListener('abort', () => reject(down ? new Error('the forecast service is down') : signal.reason)))
    return { city: 'Lisbon', forecast }
  })
  const { app, logs } = await build(t, withWeather(loader, { ...weather, cacheDeferred: true }))
  for (let visit = 0; visit < 2; visit++) t.equal(cacheOutcome(await app.inject({ url: '/weather', headers: BOT })), 'miss')
  const hit = await app.inject({ url: '/weather', headers: BOT })
  t.equal(cacheOutcome(hit), 'hit')
  t.match(hit.body, FORECAST_SHOWN, 'with the forecast it was kept with')
  t.match(signals[2]?.reason?.message, /served from the render cache/, 'the hit\'s own forecast is told to stop, and why')
  down = true
  t.equal(cacheOutcome(await app.inject({ url: '/weather', headers: BOT })), 'hit')
  await setTimeout(10)
  t.notOk(logs.some((entry) => entry.level >= 50), 'a part failing behind a hit is logged as nobody\'s error')
})

// A part that failed (a service down for a moment) would otherwise be kept, and its failure served to every visitor
// after it, long after the service came back.
t.test('a document whose deferred part failed is never kept, though its page says cacheDeferred', async (t) => {
  let down = true
  const flaky = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: down ? Promise.reject(new DeferredError('The forecast service is not answering.')) : Promise.resolve({ summary: 'Sunny, 21 °C' }) }))
  const { app } = await build(t, { ...withWeather(flaky, { ...weather, cacheDeferred: true }), allowErrorLogs: true })
  for (const headers of [BOT, FIRST_VISIT, RUNS_SCRIPTS, BOT, FIRST_VISIT, RUNS_SCRIPTS]) {
    const failed = await app.inject({ url: '/weather', headers })
    t.match(failed.body, 'The forecast service is not answering.')
    t.equal(cacheOutcome(failed), 'miss', 'every delivery renders it again')
  }
  t.equal(app.renderCache.size, 0, 'nothing kept')
  down = false
  const back = await app.inject({ url: '/weather', headers: BOT })
  t.match(back.body, FORECAST_SHOWN, 'the service is back, and so is the forecast')
})

t.test('the metrics tell streamed, held and whole documents apart: time to the head and to the last byte', async (t) => {
  const resolved = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: new Promise<Forecast>((resolve) => setImmediate(() => resolve({ summary: 'Sunny, 21 °C' }))) }))
  const { app } = await build(t, { ...withWeather(resolved), env: { METRICS_PORT: '0' } })
  for (const headers of [RUNS_SCRIPTS, FIRST_VISIT, BOT]) await app.inject({ url: '/weather', headers })
  await app.inject({ url: '/', headers: FIRST_VISIT })
  const samples = await scrape(app)
  for (const name of ['document_head_seconds_count', 'document_last_byte_seconds_count']) {
    t.same(labelValues(samples, name, 'delivery'), ['held', 'streamed', 'whole'], `${name}: each delivery apart`)
    t.equal(valueOf(samples, name, { delivery: 'streamed' }), 1)
    t.equal(valueOf(samples, name, { delivery: 'held' }), 1)
    t.equal(valueOf(samples, name, { delivery: 'whole' }), 2, 'the bot\'s document and the home page')
  }
  t.equal(valueOf(samples, 'render_errors_total', { page: 'weather' }), undefined, 'parts that arrived are no failure')
})

t.test('a document whose part failed or reached the time limit counts as failed in the metrics', async (t) => {
  const failing = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: Promise.reject(new Error('the forecast service is down')) }))
  const { app } = await build(t, { ...withWeather(failing), env: { METRICS_PORT: '0' }, allowErrorLogs: true })
  for (const headers of [RUNS_SCRIPTS, FIRST_VISIT, BOT]) t.equal((await app.inject({ url: '/weather', headers })).statusCode, 200)
  t.equal(valueOf(await scrape(app), 'render_errors_total', { page: 'weather' }), 3, 'streamed, held and whole')

  const { options } = gatedWeather()
  const { app: slow } = await build(t, { ...options, env: { METRICS_PORT: '0', STREAM_TIME_LIMIT_MS: '100' } })
  t.equal((await slow.inject({ url: '/weather', headers: RUNS_SCRIPTS })).statusCode, 200)
  t.equal(valueOf(await scrape(slow), 'render_errors_total', { page: 'weather' }), 1, 'timed out')
})

// light-my-request closes a response it has read whole without marking it finished: every inject() told the loader its
// client had left, so a test of the signal passed whether or not anyone left.
t.test('a response that ended leaves its loader\'s signal alone, under inject() too', async (t) => {
  const { signals, forecast, options } = gatedWeather()
  forecast.open({ summary: 'Sunny, 21 °C' })
  const { app } = await build(t, options)
  for (const headers of [RUNS_SCRIPTS, FIRST_VISIT, BOT]) t.match((await app.inject({ url: '/weather', headers })).body, FORECAST_SHOWN)
  await setTimeout(10)
  t.same(signals.map((signal) => signal.aborted), [false, false, false])
})

t.test('a loader stopped by its signal because the client left is nobody\'s error', async (t) => {
  const called = gate<void>()
  const waits = defineLoader<WeatherData>(async ({ signal }) => {
    called.open()
    // Slow work that honours the signal, as fetch() does.
    await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
    return { city: 'Lisbon', forecast: Promise.resolve({ summary: 'never shown' }) }
  })
  const { url, logs } = await listen(t, withWeather(waits))
  const response = openStreamed(`${url}/weather`, FIRST_VISIT)
  await called.promise
  response.abandon()
  const said = (entry: typeof logs[number]) => entry.msg === 'the client went away while the page loaded'
  await new Promise<void>((resolve) => {
    const check = () => logs.some(said) ? resolve() : setImmediate(check)
    check()
  })
  t.equal(logs.find(said)?.level, 30, 'an info line says so')
  t.notOk(logs.some((entry) => entry.level >= 50), 'no error logged')
})

t.test('HEAD of a page with deferred data answers its headers and no body', async (t) => {
  const { forecast, options } = gatedWeather()
  const { app } = await build(t, options)
  forecast.open({ summary: 'Sunny, 21 °C' })
  for (const headers of [RUNS_SCRIPTS, FIRST_VISIT]) {
    const response = await app.inject({ method: 'HEAD', url: '/weather', headers })
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    t.equal(response.body, '')
  }
})

t.test('a request pipelined behind the HEAD of a page that waits is answered too', async (t) => {
  for (const [kind, headers] of [['streamed', RUNS_SCRIPTS], ['held', FIRST_VISIT]] as const) {
    const { forecast, options } = gatedWeather()
    const { url } = await listen(t, options)
    const { port } = new URL(url)
    const head = `HEAD /weather HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`
    const next = 'GET /resources/healthcheck HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
    const socket = connect(Number(port), '127.0.0.1')
    t.teardown(() => socket.destroy())
    let received = ''
    const bothAnswered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1')
        if (/\r\n\r\nOK$/.test(received)) resolve()
      })
    })
    socket.write(head + next)
    await setTimeout(50)
    forecast.open({ summary: 'Sunny, 21 °C' })
    // A hang shows as a missing second answer, not as a slow one: the bound is far above any answer's time.
    await Promise.race([bothAnswered, setTimeout(10_000)])
    t.same([...received.matchAll(/^HTTP\/1\.1 (\d+)/gm)].map((match) => match[1]), ['200', '200'], `${kind}: the HEAD and the health check behind it`)
    socket.destroy()
  }
})

t.test('a part whose value JSON cannot carry fails in place, logged, rather than hydrating differently', async (t) => {
  const circular: Record<string, unknown> = { summary: 'Sunny' }
  circular.self = circular
  const loader = defineLoader<WeatherData>(() => ({ city: 'Lisbon', forecast: Promise.resolve(circular as unknown as Forecast) }))
  const { app, logs } = await build(t, { ...withWeather(loader), allowErrorLogs: true })
  const response = await app.inject({ url: '/weather', headers: FIRST_VISIT })
  t.equal(response.statusCode, 200)
  t.match(response.body, '<p role="alert">This part of the page could not be loaded. Please reload the page to try again.</p>')
  t.same(deferredOutcomes(response.body), [['forecast', { ok: false, message: 'This part of the page could not be loaded. Please reload the page to try again.' }]])
  t.equal(logs.filter((entry) => entry.level >= 50).length, 1, 'logged once')
})
