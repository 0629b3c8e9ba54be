import type { FastifyInstance, onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { refuseSpeculation } from '../http/speculation.js'
import type { LoadedScreens } from '../screens/load-screens.js'

/**
 * A loader that sets a flash toast while answering a speculation (a private page sending a signed-out prerender to
 * sign in) has it held back; its answer is refused as one with a toast waiting is, so the browser drops it and the
 * click's own request sets the toast (docs/navigation.md). Only a loader can set one on a GET. A page is refused before
 * it renders (page-rendering.tsx); what the loader sent itself, a redirect, is refused here.
 */
const refuseHeldBackToast: onSendHookHandler = function (_request, reply, payload, done) {
  if (!this.flashToasts.heldBack(reply)) return done(null, payload)
  refuseSpeculation(reply).removeHeader('location')
  done(null, '')
}

export const pageRoutes = fp<{ screens: LoadedScreens }>(async function pageRoutes (app: FastifyInstance, { screens: { screens, loaders } }) {
  for (const { id, view } of screens) {
    if (!view.path) continue
    if (!loaders.has(id)) {
      // Nothing to wait for: a synchronous handler, so a page from the render cache costs no promise.
      app.get(view.path, (_request, reply) => { reply.sendPage({ id, status: 200, data: null }) })
      continue
    }
    app.get(view.path, { onSend: refuseHeldBackToast }, async (_request, reply) => {
      await reply.renderPage(id)
      return reply
    })
  }
}, { name: 'page-routes', fastify: '5.x', encapsulate: true, dependencies: ['page-rendering', 'page-loading', 'flash-toasts'] })
