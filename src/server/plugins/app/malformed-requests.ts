import fp from 'fastify-plugin'
import { clientError } from '../../errors.js'
import { malformation } from '../../http/malformed-requests.js'

// Registered before the hooks that read a request: one refused here is answered plainly, its cookies never read.
export const malformedRequests = fp(async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    const code = malformation(request.raw)
    if (code === undefined) return done()
    // A client that framed one request wrongly may frame the next one wrongly too, and a proxy may read it otherwise:
    // nothing more is read from this connection, as after Node's own 400s.
    reply.header('Connection', 'close')
    done(clientError(code))
  })
}, { name: 'malformed-requests', fastify: '5.x' })
