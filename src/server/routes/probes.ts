import type { FastifyInstance, FastifyReply } from 'fastify'

/** Seconds a client should wait before asking a draining or overloaded instance again. */
const RETRY_AFTER_SECONDS = 5

const PROBE = {
  // Two bytes out and no body in: the compression hooks would only cost each probe time.
  compress: false,
  decompress: false,
  // Probes arrive every few seconds from every balancer: no access log at info.
  logLevel: 'warn'
} as const

function answer (reply: FastifyReply, status: number, text: string): void {
  reply.status(status).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send(text)
}

/**
 * For load balancers and orchestrators, answered without rendering React.
 * HEAD comes with GET.
 * - /resources/healthcheck (liveness): 200 while the process serves; under
 *   load shedding it is shed like any request, with 503 and Retry-After.
 * - /resources/readiness: 200 when the instance should get traffic; 503 with
 *   Retry-After from the moment draining starts, and while load is shed.
 */
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
