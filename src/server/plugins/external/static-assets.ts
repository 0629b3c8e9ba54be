import fastifyStatic from '@fastify/static'
import fp from 'fastify-plugin'

const HASHED = 'public, max-age=31536000, immutable'
const UNHASHED = 'public, max-age=3600'

export interface StaticAssetsOptions {
  root: string
  /** Whether the browser bundle's source maps are served: they hold our sources, so not in production unless asked. */
  sourceMaps: boolean
}

// Hashed assets never change, so they are cached for a year; the rest (favicon, manifest) briefly.
// Precompressed .br/.gz files written by the build (build/compress.mjs) are sent when the client accepts them.
export const staticAssets = fp<StaticAssetsOptions>(async (app, { root, sourceMaps }) => {
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: false,
    preCompressed: true,
    cacheControl: false,
    serveDotFiles: false,
    // The compressed variants are served in place of their originals, never by their own names.
    globIgnore: ['**/*.br', '**/*.gz', ...(sourceMaps ? [] : ['**/*.map'])],
    setHeaders (reply, path) {
      reply.header('Cache-Control', /[\\/]assets[\\/]/.test(path) ? HASHED : UNHASHED)
    }
  })
}, { name: 'static-assets', fastify: '5.x' })
