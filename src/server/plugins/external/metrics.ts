import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { HoneypotError } from '../../security/honeypot.js'
import type { Metrics } from '../../observability/metrics.js'
import { speculationOf } from '../../http/speculation.js'
import { documentOutcome } from '../app/document-timing.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Prometheus metrics, or null when they are off (METRICS_PORT unset): callers write `app.metrics?.…`. */
    metrics: Metrics | null
  }
}

export const NOT_FOUND_ROUTE = 'not found'

/** The route pattern, never the URL: an attacker chooses URLs, and each would become a new series. */
export function routePattern (request: FastifyRequest): string {
  return request.is404 ? NOT_FOUND_ROUTE : request.routeOptions.url ?? NOT_FOUND_ROUTE
}

// Off, it adds no hook at all, and a start does not load prom-client (docs/decisions/start-up.md).
export const metrics = fp<{ enabled: boolean }>(async (app, { enabled }) => {
  if (!enabled) {
    app.decorate('metrics', null)
    return
  }
  const { Metrics } = await import('../../observability/metrics.js')
  const recorder = new Metrics({ renderCache: () => app.renderCache.stats, readiness: () => app.readiness })
  app.decorate('metrics', recorder)

  app.addHook('onError', (request, _reply, error, done) => {
    if (error.code === 'FST_UNDER_PRESSURE') recorder.loadShed()
    else if (error.code === 'CROSS_SITE') recorder.crossSiteRefused(routePattern(request))
    else if (error instanceof HoneypotError) recorder.honeypotRejected(error.code)
    done()
  })
  // Fastify runs no onResponse for a response cut short, so these would otherwise go uncounted.
  app.addHook('onRequestAbort', (request, done) => {
    recorder.requestAbandoned(routePattern(request), request.method, speculationOf(request))
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    recorder.observeRequest(routePattern(request), request.method, reply.statusCode, reply.elapsedTime / 1000, speculationOf(request))
    const document = documentOutcome(reply)
    if (document) recorder.documentSent(document)
    done()
  })
}, { name: 'metrics', fastify: '5.x', dependencies: ['document-timing', 'page-rendering', 'readiness'] })
