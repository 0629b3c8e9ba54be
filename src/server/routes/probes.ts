import type { FastifyInstance, FastifyReply } from 'fastify'

const RETRY_AFTER_SECONDS = 5

const PROBE = {
  compress: false,
  decompress: false,
  // Probes arrive every few seconds from every balancer: no access log at info.
  logLevel: 'warn',
  config: { probe: true }
} as const

function answer (reply: FastifyReply, status: number, text: string): void {
  reply.status(status).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send(text)
}

/** Liveness, and readiness (503 from the moment draining starts); both shed under load like any request. */
export async function probeRoutes (app: FastifyInstance) {
  app.get('/resources/healthcheck', PROBE, (_request, reply) => { answer(reply, 200, 'OK') })
  app.get('/resources/readiness', PROBE, (_request, reply) => {
    if (app.draining) {
      reply.header('Retry-After', String(RETRY_AFTER_SECONDS))
      answer(reply, 503, 'Draining')
    } else {
      answer(reply, 200, 'Ready')
    }
  })
}
