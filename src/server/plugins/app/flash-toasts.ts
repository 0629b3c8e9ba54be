import fp from 'fastify-plugin'
import { createFlashToasts, type FlashToasts } from '../../cookies/flash-toast.js'

declare module 'fastify' {
  interface FastifyInstance {
    flashToasts: FlashToasts
  }
}

export const flashToasts = fp<{ now?: () => number }>(async (app, { now }) => {
  app.decorate('flashToasts', createFlashToasts({ attributes: app.cookieAttributes, ...(now ? { now } : {}) }))
}, { name: 'flash-toasts', fastify: '5.x', dependencies: ['cookies'] })
