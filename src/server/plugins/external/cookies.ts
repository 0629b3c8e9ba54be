import cookie from '@fastify/cookie'
import fp from 'fastify-plugin'
import { cookieAttributes, type CookieAttributes } from '../../cookies/attributes.js'

declare module 'fastify' {
  interface FastifyInstance {
    cookieAttributes: CookieAttributes
  }
}

export interface CookiesOptions {
  /** Newest first: @fastify/cookie signs with the first secret and verifies with any. */
  secret: readonly string[]
  secure: boolean
}

// As `parseOptions` they apply to clearCookie too: a cookie cleared with other attributes than it was set with stays.
export const cookies = fp<CookiesOptions>(async (app, { secret, secure }) => {
  const attributes = cookieAttributes({ secure })
  await app.register(cookie, { secret: [...secret], parseOptions: { ...attributes } })
  app.decorate('cookieAttributes', attributes)
}, { name: 'cookies', fastify: '5.x' })
