import fp from 'fastify-plugin'
import { clientError } from '../../errors.js'
import { malformation } from '../../http/malformed-requests.js'

// Registered before the hooks that read a request: one refused here is answered plainly, its cookies never read.
export const malformedRequests = fp(async (app) => {
  app.addHook('onRequest', (request, _reply, done) => {
    const code = malformation(request.raw)
    done(code === undefined ? undefined : clientError(code))
  })
}, { name: 'malformed-requests', fastify: '5.x' })
