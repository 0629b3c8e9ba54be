import type { FastifyRequest } from 'fastify'
import Negotiator from 'negotiator'
import { PassThrough, type Readable, type Writable } from 'node:stream'
import { constants, createBrotliCompress, createGzip } from 'node:zlib'
import { COMPRESSION_LEVELS } from '../plugins/external/compression.js'

export type DocumentEncoding = 'br' | 'gzip' | null

/** As @fastify/compress would choose for the same request; null sends the document as it is. */
export function negotiateEncoding (request: FastifyRequest): DocumentEncoding {
  const accept = request.headers['accept-encoding']
  if (accept === undefined || request.headers['x-no-compression'] !== undefined) return null
  const chosen = new Negotiator({ headers: { 'accept-encoding': accept } }).encoding(['br', 'gzip', 'identity'])
  return chosen === 'br' || chosen === 'gzip' ? chosen : null
}

/** Where a document that waits is written: `input` takes HTML, `body` is what the reply sends. */
export interface DocumentSink {
  encoding: DocumentEncoding
  input: Writable
  body: Readable
  /** Pushes everything written so far to the client: without it zlib and brotli hold output until they end. */
  flush (): void
}

// A document that waits is compressed here, not by @fastify/compress, which never flushes: the head would wait for
// the data (docs/decisions/streaming-to-script-runners.md). A sync flush keeps the dictionary, so the document
// still compresses almost as well as in one piece.
export function documentSink (encoding: DocumentEncoding): DocumentSink {
  if (encoding === null) {
    const through = new PassThrough()
    return { encoding, input: through, body: through, flush () {} }
  }
  if (encoding === 'br') {
    const brotli = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: COMPRESSION_LEVELS.brotliQuality } })
    return { encoding, input: brotli, body: brotli, flush: () => brotli.flush(constants.BROTLI_OPERATION_FLUSH) }
  }
  const gzip = createGzip({ level: COMPRESSION_LEVELS.gzipLevel })
  return { encoding, input: gzip, body: gzip, flush: () => gzip.flush(constants.Z_SYNC_FLUSH) }
}
