import compress from '@fastify/compress'
import fp from 'fastify-plugin'
import { constants } from 'node:zlib'

/** Shared with the documents that compress themselves (src/server/rendering/document-encoding.ts). */
export const COMPRESSION_LEVELS = { brotliQuality: 4, gzipLevel: 6 }
/** Preferred first, where a client accepts both alike. */
export const COMPRESSION_ENCODINGS: Array<'br' | 'gzip'> = ['br', 'gzip']

// Brotli at a low quality: per-request CPU matters more than the last few bytes of a small page.
// Static files arrive precompressed and pass through untouched.
export const compression = fp(async (app) => {
  await app.register(compress, {
    encodings: COMPRESSION_ENCODINGS,
    threshold: 1024,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION_LEVELS.brotliQuality } },
    zlibOptions: { level: COMPRESSION_LEVELS.gzipLevel }
  })
}, { name: 'compression', fastify: '5.x' })
