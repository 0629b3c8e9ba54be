import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { clientError } from '../../errors.js'

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
    done(request.is404 ? refuse(request, reply) : undefined)
  })
  // Reached only through reply.callNotFound().
  app.setNotFoundHandler((request, reply) => { throw refuse(request, reply) })
}, { name: 'not-found', fastify: '5.x', dependencies: ['allowed-methods', 'page-rendering'] })
