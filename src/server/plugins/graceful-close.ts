import fp from 'fastify-plugin'
import { setImmediate as nextTurn } from 'node:timers/promises'

/**
 * Lets close() finish as soon as the last in-flight response is done, and
 * fails no request the server has already received.
 *
 * server.close() drops the keep-alive connections idle at that moment; one
 * still answering a request stays open after its response until the
 * keep-alive timeout, so close() — and a graceful shutdown — waits for it,
 * past close-with-grace's delay into a forced exit 1 (fastify/fastify#7044).
 * Dropping connections as they fall idle repeats what close() did at its
 * start; responses not yet started say `Connection: close`, so keep-alive
 * clients stop sending on a connection about to go.
 *
 * "Idle" is as Node sees it: a request that has reached the kernel but not
 * yet been read sits on an idle connection, and closing that connection
 * resets it. Under steady keep-alive traffic that is most connections at
 * any instant. Waiting for the event loop to read them first turns those
 * resets into answers (Fastify's 503 with `Connection: close` for requests
 * that arrive while it closes). Regression tests: test/server/shutdown.test.ts,
 * test/attack/shutdown-under-load.test.ts.
 */
export const gracefulClose = fp(async (app) => {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
    // Two turns: whichever phase this runs in, the loop polls sockets in between.
    await nextTurn()
    await nextTurn()
  })
  // Callback hooks, not async ones: they run on every response, and a promise each is measurable.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    done(null, payload)
  })
  // onResponse runs after Node has detached the finished response from its socket, so the socket counts as idle.
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) app.server.closeIdleConnections()
    done()
  })
}, { name: 'graceful-close', fastify: '5.x' })
