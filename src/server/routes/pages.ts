import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { LoadedScreens } from '../screens/load-screens.js'

export const pageRoutes = fp<{ screens: LoadedScreens }>(async function pageRoutes (app: FastifyInstance, { screens: { screens, loaders } }) {
  for (const { id, view } of screens) {
    if (!view.path) continue
    if (!loaders.has(id)) {
      // Nothing to wait for: a synchronous handler, so a page from the render cache costs no promise.
      app.get(view.path, (_request, reply) => { reply.sendPage({ id, status: 200, data: null }) })
      continue
    }
    app.get(view.path, async (_request, reply) => {
      await reply.renderPage(id)
      return reply
    })
  }
}, { name: 'page-routes', fastify: '5.x', encapsulate: true, dependencies: ['page-rendering', 'page-loading'] })
