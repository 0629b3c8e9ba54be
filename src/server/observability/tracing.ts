import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { pathOf } from '../../shared/address.js'
import type { Env } from '../env.js'
import { trustedProxyPredicate } from '../http/request-id.js'
import { documentOutcome, documentTiming } from '../plugins/app/document-timing.js'
import { routePattern } from '../plugins/external/metrics.js'

export interface Tracing {
  /** Register first, before any other plugin or route, so every route is traced. */
  plugin: FastifyPluginAsync
  /** Call after the app has closed, so its last spans are exported. */
  shutdown: () => Promise<void>
}

/** W3C trace context and baggage: what a client could use to pick its trace id or turn sampling off. */
const TRACE_HEADERS = ['traceparent', 'tracestate', 'baggage'] as const

// Imported on demand only: its SDK is long to load and its spans cost every request (docs/decisions/observability.md).
export async function startTracing ({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: serviceName, TRUST_PROXY: trustProxy }: Pick<Env, 'OTEL_SERVICE_NAME' | 'TRUST_PROXY'> & { OTEL_EXPORTER_OTLP_ENDPOINT: string }): Promise<Tracing> {
  const [{ diag, DiagLogLevel, SpanStatusCode }, { FastifyOtelInstrumentation }, { NodeTracerProvider, BatchSpanProcessor, AlwaysOnSampler }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@fastify/otel'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources')
  ])
  // The signal's path goes after the base URL, as OTEL_EXPORTER_OTLP_ENDPOINT is defined (OTLP exporter spec).
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` })
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    // Our rule, not the caller's: the default follows the parent's sampled flag, which a client sets as it likes.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new BatchSpanProcessor(exporter)]
  })
  provider.register()

  const instrumentation = new FastifyOtelInstrumentation({
    // A span per request and per handler; one per hook as well would multiply the cost for little insight.
    instrumentHooks: false,
    requestHook: (span, request) => {
      span.updateName(`${request.method} ${routePattern(request)}`)
      // The path only: a query can carry tokens, and the logs leave it out too.
      span.setAttribute('url.path', pathOf(request.url))
    }
  })
  instrumentation.setTracerProvider(provider)
  const tracer = provider.getTracer('agent-stack')

  const isTrustedProxy = trustedProxyPredicate(trustProxy)
  const plugin = fp(async (app) => {
    // OpenTelemetry reports a failed export only to its own diagnostic logger, silent until set: to our log, at warn.
    const log = app.log.child({ component: 'opentelemetry' })
    const warn = (message: string, ...details: unknown[]) => log.warn(details.length > 0 ? { details: details.map(String) } : {}, message)
    const ignore = () => {}
    diag.setLogger({ error: warn, warn, info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN)
    // Trace context only from a trusted proxy (as request ids); before the instrumentation's hook, which reads it.
    app.addHook('onRequest', (request, _reply, done) => {
      const address = request.raw.socket?.remoteAddress
      if (address === undefined || !isTrustedProxy(address)) for (const name of TRACE_HEADERS) delete request.headers[name]
      done()
    })
    await app.register(instrumentation.plugin())
    app.addHook('onResponse', (request, reply, done) => {
      const timing = documentTiming(reply)
      const { context } = request.opentelemetry()
      if (timing?.renderMs !== undefined && context) {
        const span = tracer.startSpan('render', { startTime: timing.startedAt, attributes: { 'page.id': timing.page, 'render_cache.outcome': timing.cache } }, context)
        if (documentOutcome(reply)?.failed === true) span.setStatus({ code: SpanStatusCode.ERROR })
        span.end(timing.startedAt + timing.renderMs)
      }
      done()
    })
  }, { name: 'tracing', fastify: '5.x' })

  return { plugin, shutdown: () => provider.shutdown() }
}
