import fp from 'fastify-plugin'

/**
 * Lets close() finish as soon as the last in-flight response is done.
 * server.close() drops the keep-alive connections idle at that moment; one
 * still answering a request stays open after its response until the
 * keep-alive timeout, so close() — and a graceful shutdown — waits for it,
 * past close-with-grace's delay into a forced exit 1 (fastify/fastify#7044).
 * Dropping connections as they fall idle repeats what close() did at its
 * start. Regression test: test/server/shutdown.test.ts.
 */
export const gracefulClose = fp(async (app) => {
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  // onResponse runs after Node has detached the finished response from its socket, so the socket counts as idle.
  app.addHook('onResponse', async () => { if (closing) app.server.closeIdleConnections() })
}, { name: 'graceful-close', fastify: '5.x' })
