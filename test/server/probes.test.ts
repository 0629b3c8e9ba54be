import { setTimeout as delay } from 'node:timers/promises'
import t from 'tap'
import { build } from '../helpers/app.js'
import { blockEventLoop } from '../helpers/pressure.js'

const URL = '/resources/healthcheck'
const READINESS = '/resources/readiness'

t.test('GET /resources/healthcheck answers 200 OK in plain text, without rendering the document', async (t) => {
  const { app } = await build(t)
  for (const headers of [{}, { accept: 'text/html' }]) {
    const response = await app.inject({ url: URL, headers })
    t.equal(response.statusCode, 200)
    t.equal(response.body, 'OK')
    t.equal(response.headers['content-type'], 'text/plain; charset=utf-8', 'not text/html, even for a browser')
    t.equal(response.headers['cache-control'], 'no-store', 'never a cached answer')
    t.equal(response.headers['set-cookie'], undefined, 'no cookies')
  }
})

t.test('HEAD /resources/healthcheck answers 200 with no body', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'HEAD', url: URL })
  t.equal(response.statusCode, 200)
  t.equal(response.body, '')
  t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
})

t.test('under event-loop pressure the server sheds load with 503 and Retry-After and is not ready, then recovers', async (t) => {
  // A threshold well above an idle loop's jitter, so recovery does not depend on how busy the machine is.
  const { app } = await build(t, { env: { LOAD_SHEDDING_DELAY_MS: '50' }, loadShedding: { retryAfterSeconds: 7 } })
  await app.ready()
  t.equal(app.isUnderPressure(), false, 'not under pressure at rest')

  await blockEventLoop(() => app.isUnderPressure(), 10_000)
  t.ok(app.isUnderPressure(), 'the blocked event loop is detected')

  t.equal(app.readiness, 'shedding', 'the readiness state says why')
  const liveness = await app.inject({ url: URL })
  t.equal(liveness.statusCode, 200, 'liveness still passes: a busy instance is alive, and restarting it would shed its load onto the rest')
  t.equal(liveness.body, 'OK')

  const readiness = await app.inject({ url: READINESS })
  t.equal(readiness.statusCode, 503, 'readiness fails while load is shed')
  t.equal(readiness.headers['retry-after'], '5')
  t.equal(readiness.body, 'Overloaded')
  const readinessHead = await app.inject({ method: 'HEAD', url: READINESS })
  t.equal(readinessHead.statusCode, 503, 'HEAD too')
  t.equal(readinessHead.headers['retry-after'], '5')

  const page = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 503, 'pages are shed')
  t.equal(page.headers['retry-after'], '7')
  t.equal(page.headers['content-type'], 'text/plain; charset=utf-8', 'without rendering React for it')
  t.equal(page.body, 'The server is busy. Please retry shortly.', 'in words, to a client that states no preference')
  // Shed before the security plugin ran: the answer brings its own protections.
  t.equal(page.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  t.equal(page.headers['cache-control'], 'no-store', 'and no cache keeps the overload answer')
  const script = await app.inject({ url: '/', headers: { accept: 'application/json' } })
  t.same(script.json(), { statusCode: 503, error: 'Service Unavailable', message: 'The server is busy. Please retry shortly.' }, 'and as JSON to a script that asks for it')
  const asset = await app.inject({ url: '/favicon.svg' })
  t.equal(asset.statusCode, 200, 'files are still served: a page already sent needs its scripts to hydrate')

  // Once the loop is idle again, the next samples bring readiness back; polled, bounded.
  let recovered = await app.inject({ url: READINESS })
  const recoveryDeadline = Date.now() + 10_000
  while (recovered.statusCode !== 200 && Date.now() < recoveryDeadline) {
    await delay(100)
    recovered = await app.inject({ url: READINESS })
  }
  t.equal(recovered.statusCode, 200, 'ready again once the pressure is gone')
  t.equal(recovered.body, 'Ready')
  t.equal(app.readiness, 'ready')
})

t.test('LOAD_SHEDDING_DELAY_MS=0 turns load shedding off: a blocked event loop still gets answers', async (t) => {
  const { app } = await build(t, { env: { LOAD_SHEDDING_DELAY_MS: '0' } })
  await app.ready()
  // Slices longer than the default threshold (1000 ms), which would shed.
  await blockEventLoop(() => app.isUnderPressure(), 3_000, 1_500)
  t.equal(app.isUnderPressure(), false, 'never under pressure')
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.equal(app.readiness, 'ready')
})

t.test('GET and HEAD /resources/readiness answer 200 while the instance should get traffic', async (t) => {
  const { app } = await build(t)
  const ready = await app.inject({ url: READINESS, headers: { accept: 'text/html' } })
  t.equal(ready.statusCode, 200)
  t.equal(ready.body, 'Ready')
  t.equal(ready.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(ready.headers['cache-control'], 'no-store')
  t.equal(ready.headers['set-cookie'], undefined)
  const head = await app.inject({ method: 'HEAD', url: READINESS })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
})

t.test('once draining starts, readiness fails at once while pages and liveness are still served', async (t) => {
  let closed = false
  const { app } = await build(t, { routes (scope) { scope.addHook('onClose', async () => { closed = true }) } })
  await app.ready()
  t.equal(app.readiness, 'ready')
  // Rendered and kept before the drain, so the page asked for during the delay is no render racing the delay.
  for (let visit = 0; visit < 2; visit++) await app.inject({ url: '/', headers: { accept: 'text/html' } })
  const drained = app.drain({ delayMs: 1000, idleGraceMs: 0 })
  t.equal(app.readiness, 'draining')
  const readiness = await app.inject({ url: READINESS })
  t.equal(readiness.statusCode, 503, 'readiness fails')
  t.equal(readiness.headers['retry-after'], '5', 'with Retry-After')
  t.equal(readiness.body, 'Draining')
  t.equal((await app.inject({ url: URL })).statusCode, 200, 'the process is still alive')
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200, 'pages are still served during the delay')
  t.match(page.headers['server-timing'], /cache;desc=hit/, 'from the cache')
  t.equal(page.headers.connection, 'keep-alive', 'and nothing else changes yet: keep-alive stays')
  t.notOk(closed, 'the app is not closed during the delay')
  await drained
  t.ok(closed, 'then it closes')
})

t.test('probes write no access log at info; pages do', async (t) => {
  // inject() comes from 127.0.0.1: trusted here, so the ids below name the log lines.
  const { app, logs } = await build(t, { env: { TRUST_PROXY: 'loopback' } })
  for (const url of [URL, READINESS, '/']) await app.inject({ url, headers: { 'x-request-id': `probe${url.replaceAll('/', '-')}` } })
  const accessLogged = (id: string) => logs.some((entry) => entry.requestId === id && entry.msg === 'incoming request')
  t.notOk(accessLogged('probe-resources-healthcheck'), 'liveness')
  t.notOk(accessLogged('probe-resources-readiness'), 'readiness')
  t.ok(accessLogged('probe-'), 'a page is logged')
})
