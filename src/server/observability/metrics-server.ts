import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'

export interface MetricsListener {
  port: number
  host: string
}

/** A listener of its own, never the public port: what the metrics tell (routes, load, errors) is for the operator alone. */
export async function listenForMetrics (registry: Registry, { port, host }: MetricsListener, logger: FastifyBaseLogger): Promise<FastifyInstance> {
  const server = Fastify({ loggerInstance: logger.child({ listener: 'metrics' }) })
  // A scrape every few seconds: no access log at info.
  server.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store').type(registry.contentType)
    return registry.metrics()
  })
  await server.listen({ port, host })
  return server
}
