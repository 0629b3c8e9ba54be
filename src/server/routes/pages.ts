import type { FastifyInstance, onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { varyByVisitor } from '../http/negotiation.js'
import { refuseSpeculation } from '../http/speculation.js'
import type { LoadedScreens } from '../screens/load-screens.js'

/**
 * What a loader sent itself, not through the page (a redirect), answered as the page would be:
 * - a flash toast it set while answering a speculation (a private page sending a signed-out prerender to sign in) is
 *   held back, and the answer refused as one with a toast waiting is, so the browser drops it and the click's own
 *   request sets the toast (docs/navigation.md); a page is refused before it renders (page-rendering.tsx);
 * - a redirect depends on the visitor as its page does: a 301 or 308 without a Cache-Control is heuristically
 *   cacheable (RFC 9110 §15.1), and would keep sending a visitor to sign in after they signed in.
 */
const answerLoaderReply: onSendHookHandler = function (_request, reply, payload, done) {
  if (this.flashToasts.heldBack(reply)) {
    refuseSpeculation(reply).removeHeader('location')
    return done(null, '')
  }
  if (reply.statusCode >= 300 && reply.statusCode < 400) varyByVisitor(reply)
  done(null, payload)
}

export const pageRoutes = fp<{ screens: LoadedScreens }>(async function pageRoutes (app: FastifyInstance, { screens: { screens, loaders } }) {
  for (const { id, view } of screens) {
    if (!view.path) continue
    if (!loaders.has(id)) {
      // Nothing to wait for: a synchronous handler, so a page from the render cache costs no promise.
      app.get(view.path, (_request, reply) => { reply.sendPage({ id, status: 200, data: null }) })
      continue
    }
    app.get(view.path, { onSend: answerLoaderReply }, async (_request, reply) => {
      await reply.renderPage(id)
      return reply
    })
  }
}, { name: 'page-routes', fastify: '5.x', encapsulate: true, dependencies: ['page-rendering', 'page-loading', 'flash-toasts'] })
