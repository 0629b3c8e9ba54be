import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { clientError } from '../../errors.js'
import { withoutTrailingSlash } from '../../http/trailing-slash.js'

const OR = new Intl.ListFormat('en', { type: 'disjunction' })

function refuse (request: FastifyRequest, reply: FastifyReply): Error {
  const allowed = request.server.allowedMethods(request.url)
  // A route that takes this method but found nothing (a static file deleted under a running server) is a 404 too.
  if (allowed.length === 0 || allowed.includes(request.method)) return clientError('NOT_FOUND')
  // An address we have, asked with a method it does not take (RFC 9110 §15.5.6).
  reply.header('Allow', allowed.join(', '))
  return clientError('METHOD_NOT_ALLOWED', `This address does not accept ${request.method} requests, only ${OR.format(allowed)}.`)
}

/** Decided in onRequest, before any body is read. Register after the cookie and security plugins: the error page needs them. */
export const notFound = fp(async (app) => {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done()
    // `/examples/` for `/examples`: one address per page, and a link with a slash too many still arrives.
    const canonical = request.method === 'GET' || request.method === 'HEAD' ? withoutTrailingSlash(request.url) : null
    if (canonical !== null && request.server.allowedMethods(canonical).includes('GET')) {
      reply.header('Cache-Control', 'public, max-age=3600').redirect(canonical, 301)
      return
    }
    done(refuse(request, reply))
  })
  // Reached only through reply.callNotFound().
  app.setNotFoundHandler((request, reply) => { throw refuse(request, reply) })
}, { name: 'not-found', fastify: '5.x', dependencies: ['allowed-methods', 'page-rendering'] })
