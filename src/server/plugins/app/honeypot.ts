import fp from 'fastify-plugin'
import { Honeypot, type HoneypotOptions } from '../../security/honeypot.js'

declare module 'fastify' {
  interface FastifyInstance {
    honeypot: Honeypot
  }
}

export const honeypot = fp<HoneypotOptions>(async (app, options) => {
  app.decorate('honeypot', new Honeypot(options))
}, { name: 'honeypot', fastify: '5.x' })
