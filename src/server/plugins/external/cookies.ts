import cookie from '@fastify/cookie'
import fp from 'fastify-plugin'
import { cookieAttributes, type CookieAttributes } from '../../cookies/attributes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** What every cookie of the app is set and cleared with unless it says otherwise. */
    cookieAttributes: CookieAttributes
  }
}

export interface CookiesOptions {
  /** Newest first: @fastify/cookie signs with the first secret and verifies with any. */
  secret: readonly string[]
  secure: boolean
}

// The attributes are @fastify/cookie's `parseOptions`, which it applies to every setCookie and clearCookie, so a
// cookie cleared with the attributes it was set with (else the browser keeps it) needs nothing of its own.
export const cookies = fp<CookiesOptions>(async (app, { secret, secure }) => {
  const attributes = cookieAttributes({ secure })
  await app.register(cookie, { secret: [...secret], parseOptions: { ...attributes } })
  app.decorate('cookieAttributes', attributes)
}, { name: 'cookies', fastify: '5.x' })
