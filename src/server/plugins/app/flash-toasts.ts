import fp from 'fastify-plugin'
import { createFlashToasts, type FlashToasts } from '../../cookies/flash-toast.js'
import { refuseSpeculation } from '../../http/speculation.js'

declare module 'fastify' {
  interface FastifyInstance {
    flashToasts: FlashToasts
  }
}

export const flashToasts = fp<{ now?: () => number }>(async (app, { now }) => {
  const toasts = createFlashToasts({ attributes: app.cookieAttributes, ...(now ? { now } : {}) })
  app.decorate('flashToasts', toasts)
  // A speculation answered with a toast (a loader redirecting a signed-out prerender with "Sign in first") is refused
  // as one with a toast waiting is: the browser drops it, and the click's own request sets the toast.
  // By callback: every response passes here, and a page from the render cache costs no promise.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!toasts.heldBack(reply)) return done(null, payload)
    refuseSpeculation(reply).removeHeader('location')
    done(null, '')
  })
}, { name: 'flash-toasts', fastify: '5.x', dependencies: ['cookies'] })
