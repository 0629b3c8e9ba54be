import Fastify from 'fastify'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

/** A span as OTLP/JSON carries it, with its attributes flattened and its service's name. */
export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  attributes: Record<string, unknown>
  service: unknown
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number
}

interface KeyValue { key: string, value: Record<string, unknown> }
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] }
    scopeSpans?: Array<{ spans?: Array<{ traceId: string, spanId: string, parentSpanId?: string, name: string, attributes?: KeyValue[], status?: { code?: number } }> }>
  }>
}

const flatten = (attributes: KeyValue[] = []) => Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]))

/**
 * A stand-in for an OpenTelemetry collector's OTLP/HTTP receiver: it takes
 * JSON exports at POST /v1/traces, answers as a collector does, and keeps
 * every span it was sent.
 */
export async function otlpStandIn (t: Test): Promise<{ url: string, spans: ReceivedSpan[], contentTypes: string[] }> {
  const spans: ReceivedSpan[] = []
  const contentTypes: string[] = []
  const app = Fastify({ logger: false })
  app.post<{ Body: ExportRequest }>('/v1/traces', async (request) => {
    contentTypes.push(String(request.headers['content-type']))
    for (const resourceSpans of request.body.resourceSpans ?? []) {
      const service = flatten(resourceSpans.resource?.attributes)['service.name']
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({ traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId || undefined, name: span.name, attributes: flatten(span.attributes), service, status: span.status?.code ?? 0 })
        }
      }
    }
    return { partialSuccess: {} }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, spans, contentTypes }
}
