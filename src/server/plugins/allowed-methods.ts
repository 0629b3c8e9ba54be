import type { FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import FindMyWay from 'find-my-way'

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods the app's routes answer at `url` (a request's path and query), sorted; empty for an address it does not have. */
    allowedMethods (url: string): string[]
  }
}

const noop = () => {}

/**
 * A second router holding every route's method and path, so that a request
 * no route took can be told apart: an address the app has, asked with a
 * method it does not take (405 with Allow, RFC 9110 §15.5.6), from one it
 * does not have (404). Fastify's router answers only "no route", and
 * findRoute/hasRoute compare route patterns, not addresses.
 *
 * Register it before any route, with the router options the app uses, so it
 * matches addresses exactly as Fastify does.
 */
export const allowedMethods = fp<{ routerOptions?: FastifyServerOptions['routerOptions'] }>(async (app, { routerOptions = {} }) => {
  const router = FindMyWay({
    ignoreTrailingSlash: routerOptions.ignoreTrailingSlash,
    ignoreDuplicateSlashes: routerOptions.ignoreDuplicateSlashes,
    caseSensitive: routerOptions.caseSensitive,
    maxParamLength: routerOptions.maxParamLength
  })
  const methods = new Set<string>()

  app.addHook('onRoute', ({ method, url }) => {
    for (const one of [method].flat() as FindMyWay.HTTPMethod[]) {
      // The same method and path twice means routes told apart by constraints (host, version): one entry says it all.
      if (router.hasRoute(one, url)) continue
      methods.add(one)
      router.on(one, url, noop)
    }
  })

  app.decorate('allowedMethods', (url: string) => {
    const end = url.indexOf('?')
    const path = end === -1 ? url : url.slice(0, end)
    return [...methods].filter((method) => router.find(method as FindMyWay.HTTPMethod, path) !== null).sort()
  })
}, { name: 'allowed-methods', fastify: '5.x' })
