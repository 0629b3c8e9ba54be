import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A health probe: orchestrators and balancers call it over plain http on purpose, and read no browser header. */
    probe?: boolean
  }
}

export const PLAIN_HTTP_WARNING = 'a plain-http request reached this production instance: its pages will load unstyled and never hydrate, ' +
  'since production sends HSTS, upgrade-insecure-requests and Secure cookies. Serve it behind HTTPS; ' +
  'if a TLS-terminating proxy is already in front, set TRUST_PROXY so its X-Forwarded-Proto is believed.'

// Served over plain http by mistake, nothing fails on the server, so it says so, once.
export const plainHttpWarning = fp(async (app) => {
  let warned = false
  app.addHook('onRequest', (request, _reply, done) => {
    if (!warned && request.protocol !== 'https' && !request.routeOptions.config.probe) {
      warned = true
      request.log.warn({ protocol: request.protocol, host: request.host }, PLAIN_HTTP_WARNING)
    }
    done()
  })
}, { name: 'plain-http-warning', fastify: '5.x' })
