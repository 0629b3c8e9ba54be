import fastifyStatic from '@fastify/static'
import type { FastifyError, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import { clientError, rangeNotSatisfiable } from '../../errors.js'
import { NEVER_SHED } from './load-shedding.js'

const HASHED = 'public, max-age=31536000, immutable'
const UNHASHED = 'public, max-age=3600'

export interface StaticAssetsOptions {
  root: string
  /** Whether the browser bundle's source maps are served: they hold our sources, so not in production unless asked. */
  sourceMaps: boolean
}

type SendError = FastifyError & { headers?: Record<string, string> }

// A 416 keeps the `Content-Range: bytes */<length>` @fastify/send put on the error (RFC 9110 §15.5.17): our error
// handler answers from the catalogue, not with an error's headers.
function inCatalogue (error: SendError, reply: FastifyReply): Error {
  if (error.statusCode === 412) return clientError('PRECONDITION_FAILED')
  if (error.statusCode !== 416) return error
  const contentRange = error.headers?.['Content-Range']
  if (contentRange === undefined) return clientError('RANGE_NOT_SATISFIABLE')
  reply.header('Content-Range', contentRange)
  const length = /^bytes \*\/(\d+)$/.exec(contentRange)?.[1]
  return length === undefined ? clientError('RANGE_NOT_SATISFIABLE') : rangeNotSatisfiable(Number(length))
}

// Hashed assets never change, so they are cached for a year; the rest (favicon, manifest) briefly.
export const staticAssets = fp<StaticAssetsOptions>(async (app, { root, sourceMaps }) => {
  // A scope of its own, so that this error handler sees the file server's errors only; the app's answers them.
  await app.register(async (files) => {
    files.setErrorHandler((error: SendError, request, reply) => app.errorHandler(inCatalogue(error, reply), request, reply))
    // Never shed: a page already sent needs its scripts to hydrate, and a precompressed file costs the loop little.
    files.addHook('onRoute', (route) => { route.config = { ...route.config, ...NEVER_SHED } })
    await files.register(fastifyStatic, {
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
  })
}, { name: 'static-assets', fastify: '5.x' })
