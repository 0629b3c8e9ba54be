import t from 'tap'
import { encodingFor } from '../../src/server/rendering/document-encoding.js'

// What a document is compressed with, from the request's Accept-Encoding: as @fastify/compress chooses, so that a
// document gets the same bytes whether it was rendered for the request, kept from an earlier one, or streamed.

t.test('brotli for a browser, which takes gzip, brotli and more alike: the server\'s preference breaks the tie', async (t) => {
  t.equal(encodingFor('gzip, deflate, br, zstd'), 'br', 'Chromium')
  t.equal(encodingFor('gzip, deflate, br'), 'br', 'Firefox, Safari')
  t.equal(encodingFor('br;q=0.5, gzip;q=0.5'), 'br')
})

t.test('the client\'s own preferences come first', async (t) => {
  t.equal(encodingFor('br;q=0.5, gzip;q=0.9'), 'gzip')
  t.equal(encodingFor('br;q=0, gzip'), 'gzip', 'q=0 refuses one')
  t.equal(encodingFor('gzip'), 'gzip')
  t.equal(encodingFor('GZIP'), 'gzip', 'whatever the case')
})

t.test('`*` and `x-gzip` stand for gzip, as @fastify/compress reads them', async (t) => {
  t.equal(encodingFor('*'), 'gzip')
  t.equal(encodingFor('x-gzip'), 'gzip')
})

t.test('nothing when the client takes neither', async (t) => {
  t.equal(encodingFor('identity'), null)
  t.equal(encodingFor('deflate, zstd'), null)
  t.equal(encodingFor(''), null)
})
