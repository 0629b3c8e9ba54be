import compress from '@fastify/compress'
import type { onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { constants } from 'node:zlib'

export const COMPRESSION_LEVELS = { brotliQuality: 4, gzipLevel: 6 }

export type Encoding = 'br' | 'gzip'

// Gzip, cheaper, for a response compressed for itself alone; brotli, smaller, for one compressed once for many
// (docs/decisions/compression-by-reuse.md).
export const PER_RESPONSE_ENCODINGS: Encoding[] = ['gzip', 'br']
export const REUSED_ENCODINGS: Encoding[] = ['br', 'gzip']

// Codings are case-insensitive and x-gzip is gzip (RFC 9110 §8.4.1); @fastify/compress 9.2 matches them exactly
// (fastify/fastify-compress#428, open). Drop this when it reads the header so itself.
function requestCoding (value: string): string {
  const coding = value.toLowerCase()
  return coding === 'x-gzip' ? 'gzip' : coding
}

// Brotli at a low quality: per-request CPU matters more than the last few bytes of a small page.
export const compression = fp(async (app) => {
  // Before its preParsing hook reads the header; only on routes that read a body, so GETs run no hook for it.
  const readCoding: onRequestHookHandler = (request, _reply, done) => {
    const coding = request.raw.headers['content-encoding']
    if (coding !== undefined) request.raw.headers['content-encoding'] = requestCoding(coding)
    done()
  }
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => method === 'GET' || method === 'HEAD')) return
    route.onRequest = [readCoding, ...[route.onRequest ?? []].flat()]
  })
  await app.register(compress, {
    encodings: PER_RESPONSE_ENCODINGS,
    threshold: 1024,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION_LEVELS.brotliQuality } },
    zlibOptions: { level: COMPRESSION_LEVELS.gzipLevel }
  })
}, { name: 'compression', fastify: '5.x' })
