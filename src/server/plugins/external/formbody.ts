import formbody from '@fastify/formbody'
import fp from 'fastify-plugin'

// URL-encoded bodies, as a form sends them without JavaScript; the form routes refuse any other type but JSON.
export const formBodies = fp(async (app) => {
  await app.register(formbody)
}, { name: 'form-bodies', fastify: '5.x' })
