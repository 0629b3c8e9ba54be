import fp from 'fastify-plugin'

export type ReadinessState = 'ready' | 'draining' | 'shedding'

export const READINESS_STATES: readonly ReadinessState[] = ['ready', 'draining', 'shedding']

declare module 'fastify' {
  interface FastifyInstance {
    readonly readiness: ReadinessState
  }
}

/** Ready unless draining after SIGTERM or shedding load: either way, balancers should send traffic elsewhere. */
export const readiness = fp(async (app) => {
  app.decorate('readiness', {
    getter: (): ReadinessState => app.draining ? 'draining' : app.isUnderPressure() ? 'shedding' : 'ready'
  })
}, { name: 'readiness', fastify: '5.x', dependencies: ['graceful-close', 'load-shedding'] })
