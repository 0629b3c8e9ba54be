import type { FastifyInstance } from 'fastify'

export type ReadinessState = 'ready' | 'draining' | 'shedding'

/**
 * What the readiness probe would say, and why: draining once shutdown has
 * begun, shedding while the event loop is too far behind (every request gets
 * 503 then), ready otherwise.
 */
export function readinessState (app: Pick<FastifyInstance, 'draining' | 'isUnderPressure'>): ReadinessState {
  if (app.draining) return 'draining'
  return app.isUnderPressure() ? 'shedding' : 'ready'
}
