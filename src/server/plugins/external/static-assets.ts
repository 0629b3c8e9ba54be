import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
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

/** Paths under root, with `/`: the compressed variants are served in place of their originals, never by their own
 * names, and neither are dot files nor, unless asked, source maps. */
export function servedFiles (root: string, sourceMaps: boolean): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((path) => !/(^|\/)\.|\.(br|gz)$/.test(path) && (sourceMaps || !path.endsWith('.map')))
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
      // One route per file, listed below: the plugin's own listing (its `wildcard: false`) loads and runs glob, some
      // 8 ms of every start for a folder the build wrote (docs/decisions/start-up.md).
      serve: false,
      preCompressed: true,
      cacheControl: false,
      setHeaders (reply, path) {
        reply.header('Cache-Control', /[\\/]assets[\\/]/.test(path) ? HASHED : UNHASHED)
      }
    })
    for (const file of servedFiles(root, sourceMaps)) files.get(`/${file}`, (request, reply) => reply.sendFile(file))
  })
}, { name: 'static-assets', fastify: '5.x' })
