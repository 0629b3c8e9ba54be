import type { FastifyInstance } from 'fastify'

/** For load balancers and orchestrators: answers without rendering React. HEAD comes with GET. */
export async function healthcheckRoutes (app: FastifyInstance) {
  // Two bytes out and no body in: the compression hooks would only cost each probe time.
  app.get('/resources/healthcheck', { compress: false, decompress: false }, (_request, reply) => {
    reply.header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send('OK')
  })
}
