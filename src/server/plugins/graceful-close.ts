import fp from 'fastify-plugin'
import { Server } from 'node:net'
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'

declare module 'fastify' {
  interface FastifyInstance {
    /** True from the moment draining starts: readiness fails, the app still serves. */
    readonly draining: boolean
    /** Stops taking traffic without dropping any (see below), then closes the app. */
    drain (options: DrainOptions): Promise<void>
  }
}

export interface DrainOptions {
  /** How long readiness fails before anything else changes: the proxies' time to stop sending. */
  delayMs: number
  /** How long idle keep-alive connections are left open after the listener closes. */
  idleGraceMs: number
}

/**
 * A shutdown that drops nothing behind a proxy that never reads readiness,
 * such as nginx with a keep-alive pool (fastify/fastify#1714, #3617):
 * 1. readiness fails, and nothing else changes for `delayMs`;
 * 2. the listening socket closes, but not the connections: since Node 19
 *    server.close() destroys idle keep-alive connections at once, racing a
 *    proxy that is reusing one for a request it already wrote;
 * 3. every response says `Connection: close`, and idle connections are left
 *    for `idleGraceMs`, longer than the proxy keeps them;
 * 4. app.close() finishes what it accepted.
 *
 * app.close() drops the keep-alive connections idle at that moment; one still
 * answering stays open after its response until the keep-alive timeout
 * (fastify/fastify#7044), so idle connections are closed as they fall idle,
 * once the event loop has read what reached them (Fastify then answers 503
 * with `Connection: close` rather than resetting them).
 */
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
    // Two turns: whichever phase this runs in, the loop polls sockets in between.
    await nextTurn()
    await nextTurn()
  })
  // Callback hooks: they run on every response, and a promise each is measurable.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  // onResponse runs after Node has detached the finished response from its socket, so the socket counts as idle.
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closed) app.server.closeIdleConnections()
    done()
  })
}, { name: 'graceful-close', fastify: '5.x' })
