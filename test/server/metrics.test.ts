import { createElement } from 'react'
import { readFile } from 'node:fs/promises'
import t from 'tap'
import { assertHuman } from '../../src/server/security/honeypot.js'
import { listenForMetrics } from '../../src/server/observability/metrics-server.js'
import { timeoutOptions } from '../../src/server/http/timeouts.js'
import { Metrics, statusClass } from '../../src/server/observability/metrics.js'
import { THEME_SWITCH_PATH } from '../../src/shared/theme.js'
import { screen } from '../helpers/screens.js'
import { build, postForm } from '../helpers/app.js'
import { labelValues, parseExposition, scrape, valueOf } from '../helpers/metrics.js'
import { blockEventLoop } from '../helpers/pressure.js'

const METRICS_ON = { METRICS_PORT: '0' }
const HTML = { accept: 'text/html' }
const DURATION_COUNT = 'http_request_duration_seconds_count'

t.test('without METRICS_PORT no metrics are collected, and /metrics is an unknown address', async (t) => {
  const { app } = await build(t)
  t.equal(app.metrics, null)
  const response = await app.inject({ url: '/metrics', headers: HTML })
  t.equal(response.statusCode, 404)
  t.match(response.body, /<title>Page not found \| Agent Stack<\/title>/)
})

t.test('with METRICS_PORT the public port still serves no metrics', async (t) => {
  const { app } = await build(t, { env: METRICS_ON })
  t.ok(app.metrics, 'metrics are collected')
  for (const method of ['GET', 'HEAD'] as const) {
    const response = await app.inject({ method, url: '/metrics', headers: HTML })
    t.equal(response.statusCode, 404, `${method} /metrics is a 404 on the public port`)
    t.notMatch(response.body, /http_request_duration_seconds|process_cpu/)
  }
})

t.test('the metrics listener serves the Prometheus text format at GET /metrics, and nothing else', async (t) => {
  const { app } = await build(t, { env: METRICS_ON })
  await app.inject({ url: '/', headers: HTML })
  const listener = await listenForMetrics(app.metrics!.registry, { port: 0, host: '127.0.0.1' }, app.log)
  t.teardown(() => listener.close())
  const main = timeoutOptions()
  t.match(listener.server, { headersTimeout: main.http.headersTimeout, requestTimeout: main.requestTimeout, keepAliveTimeout: main.keepAliveTimeout }, 'the main listener\'s timeouts: half-sent headers are let go')
  const address = listener.server.address()
  if (!address || typeof address === 'string') throw new Error('the metrics listener has no TCP address')
  const base = `http://127.0.0.1:${address.port}`

  const response = await fetch(`${base}/metrics`)
  t.equal(response.status, 200)
  t.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
  t.equal(response.headers.get('cache-control'), 'no-store')
  const samples = parseExposition(await response.text())
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
    t.ok(valueOf(samples, name) !== undefined, `the default metric ${name}`)
  }
  t.ok(samples.some((sample) => sample.name === 'nodejs_gc_duration_seconds_count') || samples.some((sample) => sample.name.startsWith('nodejs_heap_space')), 'heap and GC figures')
  t.equal(valueOf(samples, DURATION_COUNT, { route: '/', method: 'GET', status_class: '2xx' }), 1, 'and the app\'s own')

  t.equal((await fetch(`${base}/`)).status, 404, 'no other address')
  t.equal((await fetch(`${base}/metrics`, { method: 'POST' })).status, 404, 'no other method')
})

t.test('request durations are labelled by route pattern, method and status class', async (t) => {
  const { app } = await build(t, { env: METRICS_ON })
  await app.inject({ url: '/', headers: HTML })
  await app.inject({ url: '/?utm_source=newsletter', headers: HTML })
  await app.inject({ method: 'HEAD', url: '/resources/healthcheck' })
  await postForm(app, THEME_SWITCH_PATH, { theme: 'dark' })
  await app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers: { 'content-type': 'text/plain' }, payload: 'x' })
  const samples = await scrape(app)
  t.equal(valueOf(samples, DURATION_COUNT, { route: '/', method: 'GET', status_class: '2xx' }), 2, 'a query string is the same route')
  t.equal(valueOf(samples, DURATION_COUNT, { route: '/resources/healthcheck', method: 'HEAD', status_class: '2xx' }), 1)
  t.equal(valueOf(samples, DURATION_COUNT, { route: THEME_SWITCH_PATH, method: 'POST', status_class: '3xx' }), 1)
  t.equal(valueOf(samples, DURATION_COUNT, { route: THEME_SWITCH_PATH, method: 'POST', status_class: '4xx' }), 1)
  const sum = valueOf(samples, 'http_request_duration_seconds_sum', { route: '/', method: 'GET', status_class: '2xx' }) ?? -1
  t.ok(sum > 0 && sum < 10, `durations in seconds (${sum})`)
  t.equal(valueOf(samples, 'http_request_duration_seconds_bucket', { route: '/', method: 'GET', status_class: '2xx', le: '+Inf' }), 2)
})

t.test('10,000 distinct unknown paths add no label value beyond one "not found" route', async (t) => {
  const { app } = await build(t, { env: METRICS_ON })
  await app.inject({ url: '/', headers: HTML })
  const before = await scrape(app)
  const methods = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'] as const
  for (let i = 0; i < 10_000; i++) {
    const path = [`/no-such-page-${i}`, `/assets/missing-${i}.js`, `/a/${i}/b?q=${i}`, `/resources/theme-switch/${i}`, `/%E2%9C%93${i}`][i % 5]
    await app.inject({ method: methods[i % methods.length], url: path, headers: { accept: 'application/json' } })
  }
  const samples = await scrape(app)
  t.same(labelValues(samples, DURATION_COUNT, 'route'), [...new Set([...labelValues(before, DURATION_COUNT, 'route'), 'not found'])].sort(), 'one route value more: "not found"')
  const notFound = samples.filter((sample) => sample.name === DURATION_COUNT && sample.labels.route === 'not found')
  t.equal(notFound.reduce((sum, sample) => sum + sample.value, 0), 10_000, 'every one of them counted there')
  t.ok(notFound.length <= methods.length * 2, `by method and status class only (${notFound.length} series)`)
  t.same(labelValues(samples, DURATION_COUNT, 'status_class'), ['2xx', '4xx'])
})

t.test('a method outside Node\'s list, or a status outside 1xx–5xx, reads as one bounded value', async (t) => {
  const metrics = new Metrics({ renderCache: () => ({ hits: 0, misses: 0, evictions: 0, entries: 0, chars: 0 }), readiness: () => 'ready' })
  metrics.observeRequest('/', 'BREW', 200, 0.001)
  metrics.observeRequest('/', 'GET', 204, 0.001)
  const samples = parseExposition(await metrics.registry.metrics())
  t.equal(valueOf(samples, DURATION_COUNT, { method: 'other' }), 1)
  t.same([statusClass(101), statusClass(204), statusClass(308), statusClass(451), statusClass(503), statusClass(999), statusClass(42)], ['1xx', '2xx', '3xx', '4xx', '5xx', '5xx', '1xx'])
})

t.test('documents rendered, by page and cache outcome, and the render cache\'s own figures', async (t) => {
  const live = screen({ path: '/live', component: () => createElement('p', null, 'live'), cache: false })
  const { app } = await build(t, { env: METRICS_ON, screens: { live } })
  // Rendered twice (a document is kept once asked for a second time), then served from the cache twice.
  for (let visit = 0; visit < 4; visit++) await app.inject({ url: '/', headers: HTML })
  await app.inject({ url: '/live', headers: HTML })
  await app.inject({ url: '/nowhere', headers: HTML })
  await app.inject({ url: '/resources/healthcheck' })
  const samples = await scrape(app)
  t.equal(valueOf(samples, 'documents_rendered_total', { page: 'home', cache: 'miss' }), 2)
  t.equal(valueOf(samples, 'documents_rendered_total', { page: 'home', cache: 'hit' }), 2)
  t.equal(valueOf(samples, 'documents_rendered_total', { page: 'live', cache: 'bypass' }), 1, 'a cache: false page bypasses the cache')
  t.equal(valueOf(samples, 'documents_rendered_total', { page: 'notFound', cache: 'miss' }), 1, 'error pages are documents too')
  t.equal(samples.filter((sample) => sample.name === 'documents_rendered_total').reduce((sum, sample) => sum + sample.value, 0), 6, 'the health check is no document')
  t.equal(valueOf(samples, 'document_render_duration_seconds_count', { cache: 'hit' }), 2)
  t.equal(valueOf(samples, 'render_cache_hits_total'), 2)
  t.equal(valueOf(samples, 'render_cache_misses_total'), 3)
  t.equal(valueOf(samples, 'render_cache_evictions_total'), 0)
  t.equal(valueOf(samples, 'render_cache_entries'), 1, 'the not-found page, asked for once, is not kept')
  t.ok((valueOf(samples, 'render_cache_chars') ?? 0) > 1000, 'and the characters it holds')
})

t.test('render errors are counted by page', async (t) => {
  const Thrower = (): never => { throw new Error('the component broke') }
  const broken = screen({ path: '/broken', component: Thrower })
  const { app } = await build(t, { env: METRICS_ON, screens: { broken }, allowErrorLogs: true })
  const response = await app.inject({ url: '/broken', headers: HTML })
  t.equal(response.statusCode, 500)
  await app.inject({ url: '/', headers: HTML })
  const samples = await scrape(app)
  t.equal(valueOf(samples, 'render_errors_total', { page: 'broken' }), 1)
  t.equal(valueOf(samples, 'render_errors_total', { page: 'home' }), undefined, 'a page that rendered is no error')
})

t.test('theme switches by theme, refused cross-site posts and honeypot rejections are counted', async (t) => {
  const { app } = await build(t, {
    env: METRICS_ON,
    routes (scope) {
      scope.post('/test/contact', async (request, reply) => {
        assertHuman(request, 'home')
        return reply.redirect('/', 303)
      })
    }
  })
  const zero = await scrape(app)
  t.same(['dark', 'light', 'system'].map((theme) => valueOf(zero, 'theme_switches_total', { theme })), [0, 0, 0], 'every theme is there from the start')

  await postForm(app, THEME_SWITCH_PATH, { theme: 'dark' })
  await postForm(app, THEME_SWITCH_PATH, { theme: 'dark' })
  await postForm(app, THEME_SWITCH_PATH, { theme: 'system' })
  await postForm(app, THEME_SWITCH_PATH, { theme: 'purple' })
  const crossSite = await postForm(app, THEME_SWITCH_PATH, { theme: 'light' }, { 'sec-fetch-site': 'cross-site' })
  t.equal(crossSite.statusCode, 403)
  await postForm(app, '/test/contact', { message: 'hi' })
  await postForm(app, '/test/contact', { message: 'hi', name__confirm: 'bot', from__confirm: 'x' })

  const samples = await scrape(app)
  t.equal(valueOf(samples, 'theme_switches_total', { theme: 'dark' }), 2)
  t.equal(valueOf(samples, 'theme_switches_total', { theme: 'system' }), 1)
  t.equal(valueOf(samples, 'theme_switches_total', { theme: 'light' }), 0, 'a refused switch is not counted')
  t.same(labelValues(samples, 'theme_switches_total', 'theme'), ['dark', 'light', 'system'], 'an invalid theme adds no value')
  t.equal(valueOf(samples, 'cross_site_refusals_total', { route: THEME_SWITCH_PATH }), 1)
  t.equal(valueOf(samples, 'honeypot_rejections_total', { reason: 'HONEYPOT_MISSING' }), 1)
  t.equal(valueOf(samples, 'honeypot_rejections_total', { reason: 'HONEYPOT_FILLED' }), 1)
})

t.test('shed load is counted, and the readiness state says why the instance is not ready', async (t) => {
  const { app } = await build(t, { env: { ...METRICS_ON, LOAD_SHEDDING_DELAY_MS: '50' } })
  await app.ready()
  const ready = await scrape(app)
  t.same(['ready', 'draining', 'shedding'].map((state) => valueOf(ready, 'readiness_state', { state })), [1, 0, 0])
  t.equal(valueOf(ready, 'load_shed_total'), 0)

  await blockEventLoop(() => app.isUnderPressure(), 10_000)
  t.ok(app.isUnderPressure(), 'the blocked event loop is detected')
  const shed = await app.inject({ url: '/', headers: HTML })
  t.equal(shed.statusCode, 503)
  const samples = await scrape(app)
  t.equal(valueOf(samples, 'load_shed_total'), 1)
  t.same(['ready', 'draining', 'shedding'].map((state) => valueOf(samples, 'readiness_state', { state })), [0, 0, 1])
  t.equal(valueOf(samples, DURATION_COUNT, { route: '/', status_class: '5xx' }), 1)
})

t.test('the readiness gauge is 1 for the current state only', async (t) => {
  const metrics = new Metrics({ renderCache: () => ({ hits: 0, misses: 0, evictions: 0, entries: 0, chars: 0 }), readiness: () => 'draining' })
  const samples = parseExposition(await metrics.registry.metrics())
  t.same(['ready', 'draining', 'shedding'].map((state) => valueOf(samples, 'readiness_state', { state })), [0, 1, 0])
})

t.test('the app\'s own metrics are exactly those docs/operating.md documents', async (t) => {
  const { app } = await build(t, { env: METRICS_ON })
  // prom-client's default metrics are all process_… or nodejs_…: docs/operating.md names them as a group.
  const own = app.metrics!.registry.getMetricsAsArray().map((metric) => metric.name).filter((name) => !/^(process|nodejs)_/.test(name))
  const operating = await readFile(new URL('../../docs/operating.md', import.meta.url), 'utf8')
  // The first cell of each row of the table: one name or several.
  const documented = [...operating.matchAll(/^\| (`[^|]+)\|/gm)].flatMap((row) => [...String(row[1]).matchAll(/`([a-z_]+)`/g)].map((name) => String(name[1])))
  t.same(own.sort(), [...new Set(documented)].filter((name) => !/^(process|nodejs)_/.test(name)).sort())
})
