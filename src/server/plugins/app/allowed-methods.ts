import type { FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import FindMyWay from 'find-my-way'
import { pathOf } from '../../../shared/address.js'

declare module 'fastify' {
  interface FastifyInstance {
    allowedMethods (url: string): string[]
  }
}

const noop = () => {}

// A second router tells a 405 from a 404 (Fastify's says only "no route"). Register it before any route.
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
      if (router.hasRoute(one, url)) continue
      methods.add(one)
      router.on(one, url, noop)
    }
  })

  app.decorate('allowedMethods', (url: string) => {
    const path = pathOf(url)
    return [...methods].filter((method) => router.find(method as FindMyWay.HTTPMethod, path) !== null).sort()
  })
}, { name: 'allowed-methods', fastify: '5.x' })
