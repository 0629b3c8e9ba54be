import type { CookieSerializeOptions } from '@fastify/cookie'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /** What a cookie of the app is set with unless it says otherwise: Secure in production, from configuration. */
    cookieAttributes: Readonly<CookieSerializeOptions & { secure: boolean }>
  }
}

export const cookieAttributes = fp<{ secure: boolean }>(async (app, { secure }) => {
  app.decorate('cookieAttributes', Object.freeze({ path: '/', httpOnly: true, sameSite: 'lax' as const, secure }))
}, { name: 'cookie-attributes', fastify: '5.x' })
