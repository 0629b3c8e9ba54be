import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { encodingFor, negotiateEncoding } from '../../src/server/rendering/document-encoding.js'
import { PER_RESPONSE_ENCODINGS, REUSED_ENCODINGS } from '../../src/server/plugins/external/compression.js'

// What a document is compressed with, from the request's Accept-Encoding, read as @fastify/compress reads it. A
// browser takes gzip and brotli alike, so the server's preference decides: gzip for a document compressed for its
// response alone (as @fastify/compress compresses a rendered one), brotli for one compressed once for many (kept).

t.test('a browser, which takes both alike, gets gzip for its response alone and brotli where it is reused', async (t) => {
  for (const browser of ['gzip, deflate, br, zstd', 'gzip, deflate, br', 'br, gzip']) {
    t.equal(encodingFor(browser), 'gzip', `${browser}: per response`)
    t.equal(encodingFor(browser, PER_RESPONSE_ENCODINGS), 'gzip')
    t.equal(encodingFor(browser, REUSED_ENCODINGS), 'br', `${browser}: reused`)
  }
})

t.test('the client\'s own preferences come first', async (t) => {
  t.equal(encodingFor('br;q=0.9, gzip;q=0.5'), 'br')
  t.equal(encodingFor('br;q=0.5, gzip;q=0.9', REUSED_ENCODINGS), 'gzip')
  t.equal(encodingFor('br, gzip;q=0', PER_RESPONSE_ENCODINGS), 'br', 'q=0 refuses one')
  t.equal(encodingFor('br'), 'br')
  t.equal(encodingFor('GZIP', REUSED_ENCODINGS), 'gzip', 'whatever the case')
})

t.test('`*` and `x-gzip` stand for gzip, as @fastify/compress reads them', async (t) => {
  t.equal(encodingFor('*', REUSED_ENCODINGS), 'gzip')
  t.equal(encodingFor('x-gzip', REUSED_ENCODINGS), 'gzip')
})

t.test('nothing when the client takes neither', async (t) => {
  for (const accept of ['identity', 'deflate, zstd', '']) {
    t.equal(encodingFor(accept), null)
    t.equal(encodingFor(accept, REUSED_ENCODINGS), null)
  }
})

t.test('x-no-compression asks for none, as @fastify/compress reads it, and so does a request without Accept-Encoding', async (t) => {
  const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest
  t.equal(negotiateEncoding(request({ 'accept-encoding': 'gzip, br' })), 'gzip')
  t.equal(negotiateEncoding(request({ 'accept-encoding': 'gzip, br', 'x-no-compression': '' })), null, 'whatever its value')
  t.equal(negotiateEncoding(request({ 'accept-encoding': 'gzip, br', 'x-no-compression': '1' }), REUSED_ENCODINGS), null, 'for a kept document too')
  t.equal(negotiateEncoding(request({})), null)
})
