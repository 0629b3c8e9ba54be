import { createServer } from 'node:http'
import { once } from 'node:events'
import t from 'tap'
import { startTracing } from '../../src/server/observability/tracing.js'
import { build, TEST_SECRETS } from '../helpers/app.js'
import { otlpStandIn } from '../helpers/otlp.js'
import { startListening } from '../helpers/process.js'
import { screen } from '../helpers/screens.js'
import weather from '../fixtures/streaming/weather.js'
import { loader as weatherLoader } from '../fixtures/streaming/weather.server.js'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'

t.test('with OTEL_EXPORTER_OTLP_ENDPOINT, GET / from a trusted proxy is a span of its trace, with its render, exported over OTLP/HTTP', async (t) => {
  const collector = await otlpStandIn(t)
  const server = await startListening(t, { ...TEST_SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`, OTEL_SERVICE_NAME: 'tracing-test', TRUST_PROXY: '127.0.0.1' })
  // The sampled flag is off: the server samples by its own rule all the same.
  const page = await fetch(`${server.url}/?token=SECRET`, { headers: { accept: 'text/html', traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` } })
  t.equal(page.status, 200)
  t.match(await page.text(), /<title>Agent Stack<\/title>/)
  await (await fetch(`${server.url}/resources/healthcheck`)).text()

  // The last batch goes out on shutdown.
  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null })
  t.equal(server.stderr(), '', 'nothing on stderr')

  t.ok(collector.contentTypes.length > 0 && collector.contentTypes.every((type) => type.startsWith('application/json')), 'OTLP/HTTP, JSON-encoded, at /v1/traces')
  const request = collector.spans.find((span) => span.name === 'GET /')
  t.ok(request, `a span for GET / among: ${collector.spans.map((span) => span.name).join(', ')}`)
  t.equal(request?.traceId, TRACE_ID, 'in the incoming trace')
  t.equal(request?.parentSpanId, PARENT_ID, 'as a child of the caller\'s span')
  t.equal(request?.attributes['http.route'], '/')
  t.equal(request?.attributes['url.path'], '/', 'the path without its query')
  t.notMatch(JSON.stringify(collector.spans), /SECRET/, 'no query string in any span')
  t.equal(request?.attributes['http.response.status_code'], 200)
  t.equal(request?.service, 'tracing-test', 'named by OTEL_SERVICE_NAME')

  const render = collector.spans.find((span) => span.name === 'render')
  t.equal(render?.traceId, TRACE_ID, 'the render is traced too')
  t.equal(render?.parentSpanId, request?.spanId, 'within the request')
  t.same(render?.attributes, { 'page.id': 'home', 'render_cache.outcome': 'miss' })
  t.equal(render?.status, 0, 'a render that worked carries no error')
  t.ok(collector.spans.some((span) => span.name === 'GET /resources/healthcheck' && span.traceId !== TRACE_ID), 'a request without traceparent starts a trace of its own')
})

t.test('a document whose deferred part failed has its render span marked as an error, though its status is 200', async (t) => {
  const collector = await otlpStandIn(t)
  const tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`, OTEL_SERVICE_NAME: 'tracing-test', TRUST_PROXY: false })
  const { app } = await build(t, { instrumentation: tracing.plugin, screens: { weather: screen(weather, { loader: weatherLoader }) }, allowErrorLogs: true })
  const page = await app.inject({ url: '/weather?delay=0&fail', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.match(page.body, /The forecast service is not answering/, 'the part\'s failure is in the page')
  await app.close()
  await tracing.shutdown()
  const render = collector.spans.find((span) => span.name === 'render')
  t.equal(render?.attributes['page.id'], 'weather')
  t.equal(render?.status, 2, 'the render is an error')
})

t.test('a client that is no trusted proxy neither picks its trace id nor turns sampling off', async (t) => {
  const collector = await otlpStandIn(t)
  const server = await startListening(t, { ...TEST_SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`, OTEL_SERVICE_NAME: 'tracing-test' })
  for (const flags of ['01', '00']) {
    const page = await fetch(`${server.url}/resources/healthcheck`, { headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-${flags}`, baggage: 'user=victim' } })
    t.equal(page.status, 200)
    await page.text()
  }
  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null })
  const probes = collector.spans.filter((span) => span.name === 'GET /resources/healthcheck')
  t.equal(probes.length, 2, 'both requests are traced, the unsampled one included')
  t.ok(probes.every((span) => span.traceId !== TRACE_ID && span.parentSpanId === undefined), 'each in a trace of the server\'s own')
})

t.test('a collector that refuses the spans is named in the log at warn, and the server serves on and exits 0', async (t) => {
  const refusing = createServer((_request, response) => { response.writeHead(400).end('no') })
  refusing.listen(0, '127.0.0.1')
  await once(refusing, 'listening')
  t.teardown(() => refusing.close())
  const address = refusing.address()
  if (!address || typeof address === 'string') throw new Error('the refusing collector has no TCP address')
  // The SDK's own setting: a batch every 100 ms rather than 5 s, so one goes out while the server runs.
  const server = await startListening(t, { ...TEST_SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${address.port}`, OTEL_BSP_SCHEDULE_DELAY: '100' })
  t.equal((await fetch(`${server.url}/resources/healthcheck`)).status, 200)
  await server.waitForLog((line) => line.component === 'opentelemetry', 5000)
  t.equal((await fetch(`${server.url}/resources/healthcheck`)).status, 200, 'and it serves on')
  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null }, 'a SIGTERM still exits 0, though the last spans cannot go out')
  const warnings = server.logs().filter((line) => line.component === 'opentelemetry' || line.msg === 'the last spans could not be exported')
  t.ok(warnings.length >= 2 && warnings.every((line) => line.level === 40), `warnings say so: ${JSON.stringify(warnings.map((line) => line.msg))}`)
  t.equal(server.stderr(), '', 'nothing on stderr')
})
