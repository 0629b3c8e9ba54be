import type { FastifyInstance, onSendHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { varyByVisitor } from '../http/negotiation.js'
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

/**
 * A loader's redirect depends on the visitor as its page does (a private page sends the signed-out to sign in): it is
 * answered as a document would be. A 301 or 308 without a Cache-Control is heuristically cacheable (RFC 9110 §15.1),
 * and would keep sending a visitor there after they signed in.
 */
const answerRedirectForVisitor: onSendHookHandler = function (_request, reply, payload, done) {
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
    app.get(view.path, { onSend: [refuseHeldBackToast, answerRedirectForVisitor] }, async (_request, reply) => {
      await reply.renderPage(id)
      return reply
    })
  }
}, { name: 'page-routes', fastify: '5.x', encapsulate: true, dependencies: ['page-rendering', 'page-loading', 'flash-toasts'] })
