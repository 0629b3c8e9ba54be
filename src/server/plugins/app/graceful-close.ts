import fp from 'fastify-plugin'
import { Server } from 'node:net'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'

declare module 'fastify' {
  interface FastifyInstance {
    readonly draining: boolean
    drain (options: DrainOptions): Promise<void>
  }
}

export interface DrainOptions {
  delayMs: number
  idleGraceMs: number
}

/** After the delay and the idle grace, how long requests already accepted get to finish. */
export const DRAIN_FINISH_MS = 10_000

/** The longest a drain may take; past it the process exits 1. An orchestrator's grace period must be longer. */
export function drainBoundMs ({ delayMs, idleGraceMs }: DrainOptions): number {
  return delayMs + idleGraceMs + DRAIN_FINISH_MS
}

// Drops nothing behind a keep-alive proxy (fastify#1714, #3617): only the listener closes first, since server.close()
// would destroy idle connections a proxy may be reusing; app.close() then closes them as they fall idle (fastify#7044).
// See docs/decisions/readiness-liveness-and-draining.md.
export const gracefulClose = fp(async (app) => {
  let draining = false
  let closing = false
  let closed = false

  app.decorate('draining', { getter: () => draining })
  app.decorate('drain', async ({ delayMs, idleGraceMs }: DrainOptions) => {
    draining = true
    if (delayMs > 0) await sleep(delayMs)
    closing = true
    if (idleGraceMs > 0) {
      const emptied = new Promise((resolve) => Server.prototype.close.call(app.server, resolve))
      await Promise.race([emptied, sleep(idleGraceMs)])
    }
    await app.close()
  })

  app.addHook('preClose', async () => {
    closing = true
    closed = true
    await nextTurn()
    await nextTurn()
  })
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closed) app.server.closeIdleConnections()
    done()
  })
}, { name: 'graceful-close', fastify: '5.x' })
