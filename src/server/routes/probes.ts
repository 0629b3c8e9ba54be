import type { FastifyInstance, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'

const RETRY_AFTER_SECONDS = 5

const PROBE = {
  compress: false,
  decompress: false,
  // Probes arrive every few seconds from every balancer: no access log at info.
  logLevel: 'warn',
  // Load shedding answers other requests before their handler; a probe answers for itself.
  config: { probe: true, document: false, pressureHandler: () => undefined }
} as const

function answer (reply: FastifyReply, status: number, text: string): void {
  reply.status(status).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send(text)
}

/** Liveness stays 200 while load is shed: restarting busy instances would move the load onto the rest. */
export const probeRoutes = fp(async function probeRoutes (app: FastifyInstance) {
  app.get('/resources/healthcheck', PROBE, (_request, reply) => { answer(reply, 200, 'OK') })
  app.get('/resources/readiness', PROBE, (_request, reply) => {
    const state = app.readiness
    if (state === 'ready') return answer(reply, 200, 'Ready')
    reply.header('Retry-After', String(RETRY_AFTER_SECONDS))
    answer(reply, 503, state === 'draining' ? 'Draining' : 'Overloaded')
  })
}, { name: 'probe-routes', fastify: '5.x', encapsulate: true, dependencies: ['readiness'] })
