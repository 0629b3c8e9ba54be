import compress from '@fastify/compress'
import fp from 'fastify-plugin'
import { constants } from 'node:zlib'

// Brotli at a low quality: per-request CPU matters more than the last few bytes of a small page.
// Static files arrive precompressed and pass through untouched.
export const compression = fp(async (app) => {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: 1024,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 }
  })
}, { name: 'compression', fastify: '5.x' })
