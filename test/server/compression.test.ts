import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { build, setCookie } from '../helpers/app.js'

const URL = '/resources/theme-switch'
const FORM = 'theme=dark'

function postCompressed (app: Awaited<ReturnType<typeof build>>['app'], coding: string, body: Buffer) {
  return app.inject({
    method: 'POST',
    url: URL,
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': coding },
    payload: body
  })
}

// RFC 9110 §8.4.1: "All content codings are case-insensitive", and x-gzip is to be read as gzip.
t.test('a compressed request body is read whatever the case of its Content-Encoding, and x-gzip is gzip', async (t) => {
  const { app } = await build(t)
  const cases: Array<[string, Buffer]> = [
    ['gzip', gzipSync(FORM)],
    ['GZIP', gzipSync(FORM)],
    ['Gzip', gzipSync(FORM)],
    ['x-gzip', gzipSync(FORM)],
    ['X-GZIP', gzipSync(FORM)],
    ['BR', brotliCompressSync(FORM)],
    ['Deflate', deflateSync(FORM)],
    ['IDENTITY', Buffer.from(FORM)]
  ]
  for (const [coding, body] of cases) {
    const response = await postCompressed(app, coding, body)
    t.equal(response.statusCode, 200, `${coding}: accepted`)
    t.same(response.json(), { theme: 'dark' }, `${coding}: the form was read`)
    t.equal(setCookie(response, 'en_theme')?.value, 'dark', `${coding}: and saved`)
  }
})

t.test('a coding the server does not know is still refused with 415', async (t) => {
  const { app } = await build(t)
  for (const coding of ['compress', 'x-compress', 'gzip2']) {
    const response = await postCompressed(app, coding, gzipSync(FORM))
    t.equal(response.statusCode, 415, `${coding}: refused`)
    t.equal(response.json().error, 'Unsupported Media Type')
    t.notOk(setCookie(response, 'en_theme'), `${coding}: nothing saved`)
  }
})
