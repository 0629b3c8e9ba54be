import type { FastifyRequest } from 'fastify'
import { negotiate } from '@fastify/accept-negotiator'
import { PassThrough, type Readable, type Writable } from 'node:stream'
import { constants, createBrotliCompress, createGzip } from 'node:zlib'
import { COMPRESSION_LEVELS, PER_RESPONSE_ENCODINGS, type Encoding } from '../plugins/external/compression.js'

export type DocumentEncoding = Encoding | null

// Read as @fastify/compress reads it: `*` and `x-gzip` stand for gzip, and where the client takes two alike, the
// server's order decides.
const GZIP_ALIASES = /\*|x-gzip/gu

/** As @fastify/compress chooses for a response compressed for itself alone; null: sent as it is. */
export function negotiateEncoding (request: FastifyRequest, preferred = PER_RESPONSE_ENCODINGS): DocumentEncoding {
  const accept = request.headers['accept-encoding']
  if (accept === undefined || request.headers['x-no-compression'] !== undefined) return null
  return encodingFor(accept, preferred)
}

export function encodingFor (accept: string, preferred = PER_RESPONSE_ENCODINGS): DocumentEncoding {
  return negotiate(accept.toLowerCase().replace(GZIP_ALIASES, 'gzip'), preferred)
}

/** Where a document that waits is written: `input` takes HTML, `body` is what the reply sends. */
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
    // Done on the next tick, as zlib's flush is done later: a pass's writes and the response's end that React asks for
    // right after it then leave together.
    return { encoding, input: through, body: through, flush: (done) => process.nextTick(done) }
  }
  if (encoding === 'br') {
    const brotli = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION_LEVELS.brotliQuality } })
    return { encoding, input: brotli, body: brotli, flush: (done) => brotli.flush(constants.BROTLI_OPERATION_FLUSH, done) }
  }
  const gzip = createGzip({ level: COMPRESSION_LEVELS.gzipLevel })
  return { encoding, input: gzip, body: gzip, flush: (done) => gzip.flush(constants.Z_SYNC_FLUSH, done) }
}
