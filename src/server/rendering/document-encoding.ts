import type { FastifyRequest } from 'fastify'
import { negotiate } from '@fastify/accept-negotiator'
import { PassThrough, type Readable, type Writable } from 'node:stream'
import { constants, createBrotliCompress, createGzip } from 'node:zlib'
import { COMPRESSION_LEVELS, PER_RESPONSE_ENCODINGS, type Encoding } from '../plugins/external/compression.js'

export type DocumentEncoding = Encoding | null

// As @fastify/compress reads it: `*` and `x-gzip` are gzip; between two taken alike, the server's order decides.
const GZIP_ALIASES = /\*|x-gzip/gu

export function negotiateEncoding (request: FastifyRequest, preferred = PER_RESPONSE_ENCODINGS): DocumentEncoding {
  const accept = request.headers['accept-encoding']
  if (accept === undefined || request.headers['x-no-compression'] !== undefined) return null
  return encodingFor(accept, preferred)
}

export function encodingFor (accept: string, preferred = PER_RESPONSE_ENCODINGS): DocumentEncoding {
  return negotiate(accept.toLowerCase().replace(GZIP_ALIASES, 'gzip'), preferred)
}

export interface DocumentSink {
  encoding: DocumentEncoding
  input: Writable
  body: Readable
  /** Without it zlib and brotli hold output until they end; `done` runs once it has gone to the response. */
  flush (done: () => void): void
}

// Compressed here, not by @fastify/compress, which never flushes (docs/decisions/streaming-to-script-runners.md). A
// sync flush keeps the dictionary, so the document still compresses almost as well as in one piece.
export function documentSink (encoding: DocumentEncoding): DocumentSink {
  if (encoding === null) {
    const through = new PassThrough()
    // On the next tick, like zlib's flush: a pass's writes and the end React asks for right after it leave together.
    return { encoding, input: through, body: through, flush: (done) => process.nextTick(done) }
  }
  if (encoding === 'br') {
    const brotli = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION_LEVELS.brotliQuality } })
    return { encoding, input: brotli, body: brotli, flush: (done) => brotli.flush(constants.BROTLI_OPERATION_FLUSH, done) }
  }
  const gzip = createGzip({ level: COMPRESSION_LEVELS.gzipLevel })
  return { encoding, input: gzip, body: gzip, flush: (done) => gzip.flush(constants.Z_SYNC_FLUSH, done) }
}
