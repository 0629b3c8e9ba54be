import fp from 'fastify-plugin'
import { refuseTunnel } from '../../http/client-errors.js'

// A CONNECT never reaches Fastify's routes: Node emits it on the server, which answers it here.
export const refuseTunnels = fp(async (app) => {
  app.server.on('connect', refuseTunnel.bind(app))
}, { name: 'refuse-tunnels', fastify: '5.x', dependencies: ['allowed-methods', 'security'] })
