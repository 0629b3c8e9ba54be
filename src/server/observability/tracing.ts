import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import type { Env } from '../env.js'
import { documentTiming } from '../plugins/app/document-timing.js'
import { routePattern } from '../plugins/external/metrics.js'

export interface Tracing {
  /** Register first, before any other plugin or route, so every route is traced. */
  plugin: FastifyPluginAsync
  /** Call after the app has closed, so its last spans are exported. */
  shutdown: () => Promise<void>
}

// Imported on demand only: its SDK is long to load and its spans cost every request (docs/decisions/observability.md).
export async function startTracing ({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: serviceName }: Pick<Env, 'OTEL_SERVICE_NAME'> & { OTEL_EXPORTER_OTLP_ENDPOINT: string }): Promise<Tracing> {
  const [{ SpanStatusCode }, { FastifyOtelInstrumentation }, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
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
    spanProcessors: [new BatchSpanProcessor(exporter)]
  })
  // The global tracer, the async-hooks context manager and the W3C traceparent propagator.
  provider.register()

  const instrumentation = new FastifyOtelInstrumentation({
    // A span per request and per handler; one per hook as well would multiply the cost for little insight.
    instrumentHooks: false,
    requestHook: (span, request) => { span.updateName(`${request.method} ${routePattern(request)}`) }
  })
  instrumentation.setTracerProvider(provider)
  const tracer = provider.getTracer('agent-stack')

  const plugin = fp(async (app) => {
    await app.register(instrumentation.plugin())
    // The render of a document, as a child of its request's span, from the times Server-Timing reports.
    app.addHook('onResponse', (request, reply, done) => {
      const timing = documentTiming(reply)
      const { context } = request.opentelemetry()
      if (timing?.renderMs !== undefined && context) {
        const span = tracer.startSpan('render', { startTime: timing.startedAt, attributes: { 'page.id': timing.page, 'render_cache.outcome': timing.cache } }, context)
        if (timing.failed) span.setStatus({ code: SpanStatusCode.ERROR })
        span.end(timing.startedAt + timing.renderMs)
      }
      done()
    })
  }, { name: 'tracing', fastify: '5.x' })

  return { plugin, shutdown: () => provider.shutdown() }
}
