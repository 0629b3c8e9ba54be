// One instance for test/deploy/rolling-restart.test.ts: the shell as it is
// deployed (serve(), as main.ts runs it), plus a form of the kind docs/building-a-screen.md
// teaches, whose honeypot and flash toast depend on the rotated secrets.
import { assertHuman } from '../../src/server/security/honeypot.js'
import { serve } from '../../src/server/serve.js'

await serve({
  routes (app) {
    app.post('/test/form', async (request, reply) => {
      assertHuman(request, 'home')
      // The test's own id for the post, from its address: the log id is nginx's, never the client's.
      const { post = request.id } = request.query as { post?: string }
      app.flashToasts.set(reply, { type: 'success', description: 'Sent.', id: post })
      return reply.redirect('/', 303)
    })
  }
})
