// One instance for test/deploy/rolling-restart.test.ts: the shell as it is
// deployed (serve(), as main.ts runs it), plus a form of the kind the README
// teaches, whose honeypot and flash toast depend on the rotated secrets.
import { assertHuman } from '../../src/server/security/honeypot.js'
import { serve } from '../../src/server/serve.js'

await serve({
  routes (app) {
    app.post('/test/form', async (request, reply) => {
      assertHuman(request)
      app.flashToasts.set(reply, { type: 'success', description: 'Sent.', id: request.id })
      return reply.redirect('/', 303)
    })
  }
})
