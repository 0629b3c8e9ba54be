import { once } from 'node:events'
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { ERRORS } from '../../src/server/errors.js'
import { THEME_SWITCH_PATH } from '../../src/shared/theme.js'
import { sendRaw, type RawResponse } from '../helpers/hostile-client.js'
import { listen } from '../helpers/server.js'

/**
 * Input that fastify.inject cannot send, against a real listening server:
 * Node's HTTP parser and its limits are part of what is attacked. Each
 * request gets a 4xx that says what is wrong (or, where the input is legal,
 * a normal answer), nothing is logged as an error, and a new visitor is
 * still served afterwards.
 *
 * Two layers answer. The app answers what reaches Fastify: with its own
 * documents where the request went through the app's hooks, and with plain
 * text or JSON for a path Fastify cannot decode, which fails while routing,
 * before any hook (error-handler.ts). Node's parser refuses a request head
 * over its 16 KiB limit (--max-http-header-size) and a body framed two ways
 * before Fastify sees them: the app's client-error handler answers 431 or 400
 * in the catalogue's words as plain text (there is no Accept to read), with
 * an answer's security headers, and closes the connection.
 */

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const FORM = 'application/x-www-form-urlencoded'
const BAD_ADDRESS = 'This address is not valid: every % in a path must begin an escape such as %2F, and the escapes must spell UTF-8 text.'
const TOO_LARGE = 'The request body is too large.'
const TEN_MB = 10 * 1024 * 1024

const { url, logs } = await listen(t)
const port = Number(new URL(url).port)

/** One request, written out by hand on a connection of its own. */
function send (method: string, target: string, headers: Record<string, string>, body?: Buffer): Promise<RawResponse> {
  const lines = Object.entries({ host: `127.0.0.1:${port}`, ...headers, connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`)
  return sendRaw(port, `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n`, body)
}

const get = (target: string, headers: Record<string, string> = {}) => send('GET', target, headers)
const post = (headers: Record<string, string>, body: Buffer) => send('POST', THEME_SWITCH_PATH, headers, body)

/** A new visitor is still served: every request here has a connection of its own. */
async function assertStillServing (t: Test) {
  const health = await get('/resources/healthcheck')
  t.equal(health.status, 200, 'the health check still answers 200 on a fresh connection')
  t.equal(health.body, 'OK')
}

/** The app's document for a client error, with its title, its message and the security headers. */
function assertClientErrorPage (t: Test, response: RawResponse, status: number, title: string, message: string) {
  t.equal(response.status, status)
  t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  t.match(response.body, /^<!DOCTYPE html><html lang="en"/)
  t.match(response.body, `<title>${title} | Agent Stack</title>`)
  t.match(response.body, `<p role="alert">${message}</p>`)
  t.ok(response.body.endsWith('</html>'), 'a complete document')
  t.match(response.headers['content-security-policy'], /script-src 'self' 'nonce-/, 'with the app\'s security headers')
}

/** A request Node's parser refused: the catalogue's words, an answer's protections, and the connection closed. */
function assertParserRefusal (t: Test, response: RawResponse, code: 'HEAD_TOO_LARGE' | 'MALFORMED_REQUEST') {
  t.equal(response.status, ERRORS[code].status)
  t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(response.body, ERRORS[code].message)
  t.equal(response.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'")
  t.equal(response.headers['x-content-type-options'], 'nosniff')
  t.equal(response.headers['cache-control'], 'no-store')
  t.equal(response.headers.connection, 'close')
}

function assertJson (t: Test, response: RawResponse, expected: Record<string, unknown>) {
  t.equal(response.status, expected.statusCode)
  t.match(response.headers['content-type'], /^application\/json/)
  t.same(JSON.parse(response.body), expected)
}

t.test('a path whose escapes do not decode is a 400 that says so, with the protections the hooks would have added', async (t) => {
  const paths: Array<[string, string]> = [
    ['/%', 'a lone %'],
    ['/%E0%A4%A', 'a truncated escape'],
    ['/%zz', 'an escape that is not hexadecimal'],
    ['/%C3%28', 'escapes that are not UTF-8'],
    ['/%FF', 'a byte that is never UTF-8'],
    ['/resources/%E0%A4%A?x=1', 'under another route, with a query']
  ]
  for (const [path, name] of paths) {
    await t.test(`${path}: ${name}`, async (t) => {
      const page = await get(path, { accept: HTML })
      t.equal(page.status, 400, 'a browser gets 400')
      t.equal(page.headers['content-type'], 'text/plain; charset=utf-8', 'as text: the document needs hooks that never ran')
      t.equal(page.body, BAD_ADDRESS)
      t.equal(page.headers['x-content-type-options'], 'nosniff')
      t.equal(page.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")

      const json = await get(path, { accept: 'application/json' })
      assertJson(t, json, { statusCode: 400, error: 'Bad Request', message: BAD_ADDRESS })
      t.notOk(json.body.includes(path), 'the path is not echoed back')
      await assertStillServing(t)
    })
  }
})

t.test('a malformed escape in the query of a page is no error: the page reads no query, and browsers and Fastify read it literally', async (t) => {
  // Nothing interprets a query here, so there is nothing to be ambiguous about; the address
  // still reaches the theme switch's redirectTo, where safe-redirect.ts refuses it and returns home.
  for (const target of ['/?x=%zz', '/?x=%E0%A4%A&y=%FF', '/?%=%']) {
    const page = await get(target, { accept: HTML })
    t.equal(page.status, 200, `${target}: the page`)
    t.match(page.body, /^<!DOCTYPE html><html lang="en"/)
    t.match(page.body, '<title>Agent Stack</title>')
  }
  await assertStillServing(t)
})

t.test('10 MB for the theme switch is refused with 413, whether announced, streamed or compressed', async (t) => {
  const form = Buffer.concat([Buffer.from('theme=dark&redirectTo=/'), Buffer.alloc(TEN_MB, 'a')])

  await t.test('announced by Content-Length: refused before it is read', async (t) => {
    const page = await post({ accept: HTML, 'content-type': FORM, 'content-length': String(form.length) }, form)
    assertClientErrorPage(t, page, 413, 'Request too large', TOO_LARGE)
    t.notOk(page.headers['set-cookie'], 'nothing saved')
    t.equal(page.headers.connection, 'close', 'the connection is not kept for the rest of the body')
    await assertStillServing(t)
  })

  await t.test('streamed in chunks with no length: cut off at the limit', async (t) => {
    const chunked = Buffer.concat([Buffer.from(`${form.length.toString(16)}\r\n`), form, Buffer.from('\r\n0\r\n\r\n')])
    const json = await post({ accept: 'application/json', 'content-type': FORM, 'transfer-encoding': 'chunked' }, chunked)
    assertJson(t, json, { statusCode: 413, error: 'Payload Too Large', message: TOO_LARGE })
    t.ok(json.cutOff, 'answered before the body was all sent')
    await assertStillServing(t)
  })

  await t.test('compressed to 10 KB: the limit applies to what it inflates to', async (t) => {
    const bomb = gzipSync(form)
    t.ok(bomb.length < 20 * 1024, `${bomb.length} bytes on the wire`)
    const json = await post({ accept: 'application/json', 'content-type': FORM, 'content-encoding': 'gzip', 'content-length': String(bomb.length) }, bomb)
    assertJson(t, json, { statusCode: 413, error: 'Payload Too Large', message: TOO_LARGE })
    await assertStillServing(t)
  })
})

t.test('a request head over 16 KiB is refused by Node\'s parser with 431, before the app', async (t) => {
  const cases: Array<[string, () => Promise<RawResponse>]> = [
    ['3,000 headers', () => get('/', Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`x-attack-${i}`, String(i)])))],
    ['5,000 cookies in one Cookie header', () => get('/', { cookie: Array.from({ length: 5000 }, (_, i) => `c${i}=${i}`).join('; ') })],
    ['a 100 KB URL', () => get(`/${'a'.repeat(100 * 1024)}`)],
    ['a 100 KB query', () => get(`/?q=${'%zz'.repeat(35_000)}`)]
  ]
  for (const [name, send] of cases) {
    await t.test(name, async (t) => {
      assertParserRefusal(t, await send(), 'HEAD_TOO_LARGE')
      await assertStillServing(t)
    })
  }
})

t.test('under the limit, thousands of cookies and a long URL are answered as usual', async (t) => {
  // 2,000 short cookies fit in 16 KiB: parsed in one pass, among them the theme.
  const cookie = [...Array.from({ length: 2000 }, (_, i) => `${i.toString(36)}=1`), 'en_theme=dark'].join('; ')
  t.ok(cookie.length < 16 * 1024)
  const page = await get('/', { accept: HTML, cookie })
  t.equal(page.status, 200)
  t.match(page.body, /^<!DOCTYPE html><html lang="en" class="dark" data-theme-source="saved"/, 'the theme cookie is found among them')

  const long = await get(`/${'a'.repeat(10 * 1024)}`, { accept: HTML })
  t.equal(long.status, 404, 'a 10 KB path is an address we do not have')
  t.match(long.body, '<title>Page not found | Agent Stack</title>')
  await assertStillServing(t)
})

t.test('a body framed two ways is refused, and the request hidden behind it is never answered', async (t) => {
  // CL.TE request smuggling: a server trusting Content-Length would take the rest as a second request (RFC 9112 §6.1).
  const hidden = `GET /resources/healthcheck HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`
  const response = await send('POST', THEME_SWITCH_PATH, { 'content-type': FORM, 'content-length': '5', 'transfer-encoding': 'chunked' }, Buffer.from(`0\r\n\r\n${hidden}`))
  // The whole rest of the connection must be this one answer: a second response would show in its body.
  assertParserRefusal(t, response, 'MALFORMED_REQUEST')
  await assertStillServing(t)
})

/** Refused by the app before any hook read it: the catalogue's words as text or JSON, the protections all the same. */
function assertPlainRefusal (t: Test, response: RawResponse, code: 'HOST_MISSING' | 'HOST_REPEATED' | 'MALFORMED_REQUEST') {
  t.equal(response.status, 400)
  t.equal(response.headers['content-type'], 'text/plain; charset=utf-8', 'as text: no cookie or page was read')
  t.equal(response.body, ERRORS[code].message)
  t.equal(response.headers['x-content-type-options'], 'nosniff')
  t.equal(response.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
}

t.test('an HTTP/1.1 request without Host is a 400 in the catalogue\'s words, not Node\'s bare one; HTTP/1.0 needs none', async (t) => {
  const page = await sendRaw(port, 'GET / HTTP/1.1\r\naccept: text/html\r\nconnection: close\r\n\r\n')
  assertPlainRefusal(t, page, 'HOST_MISSING')
  const json = await sendRaw(port, 'POST /resources/theme-switch HTTP/1.1\r\naccept: application/json\r\nconnection: close\r\n\r\n')
  assertJson(t, json, { statusCode: 400, error: 'Bad Request', message: ERRORS.HOST_MISSING.message })

  const old = await sendRaw(port, 'GET / HTTP/1.0\r\naccept: text/html\r\n\r\n')
  t.equal(old.status, 200, 'HTTP/1.0 is served without one (RFC 9112 §3.2 asks it of 1.1 only)')
  t.match(old.body, '<title>Agent Stack</title>')
  await assertStillServing(t)
})

t.test('a request with two Host lines is a 400: Node keeps the first, and a proxy in front may have routed by the second', async (t) => {
  for (const hosts of [['127.0.0.1', 'evil.example'], ['127.0.0.1', '127.0.0.1']]) {
    const lines = hosts.map((host, i) => `${i === 0 ? 'Host' : 'host'}: ${host}\r\n`).join('')
    assertPlainRefusal(t, await sendRaw(port, `GET / HTTP/1.1\r\n${lines}accept: text/html\r\nconnection: close\r\n\r\n`), 'HOST_REPEATED')
  }
  const one = await sendRaw(port, `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: text/html\r\nconnection: close\r\n\r\n`)
  t.equal(one.status, 200, 'one Host is served')
  await assertStillServing(t)
})

t.test('a target of * is refused with 400 for any method but OPTIONS, which alone may name the server as a whole', async (t) => {
  for (const method of ['GET', 'POST']) assertPlainRefusal(t, await send(method, '*', { accept: HTML }), 'MALFORMED_REQUEST')
  t.equal((await send('HEAD', '*', { accept: HTML })).status, 400, 'HEAD too')
  // The server answers no OPTIONS, for * as for any address: the 405 it gives every OPTIONS.
  const options = await send('OPTIONS', '*', { accept: 'application/json' })
  t.equal(options.status, 405)
  t.equal(options.headers.allow, 'GET, HEAD')
  await assertStillServing(t)
})

t.test('after a request refused as malformed, the connection is closed: nothing sent behind it on it is answered', async (t) => {
  const hidden = `GET /resources/healthcheck HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`
  const heads = {
    HOST_MISSING: 'GET / HTTP/1.1\r\naccept: text/html\r\n\r\n',
    HOST_REPEATED: `GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nhost: evil.example\r\naccept: text/html\r\n\r\n`,
    MALFORMED_REQUEST: `GET * HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: text/html\r\n\r\n`
  } as const
  for (const [code, head] of Object.entries(heads) as Array<[keyof typeof heads, string]>) {
    // No `Connection: close` from the client: sendRaw reads until the server closes, and fails after 3 s if it never does.
    const response = await sendRaw(port, head + hidden, undefined, 3000)
    assertPlainRefusal(t, response, code)
    t.equal(response.headers.connection, 'close', `${code}: the refusal says the connection ends`)
  }
  await assertStillServing(t)
})

t.test('a CONNECT is refused with 405 in the catalogue\'s words, not a connection dropped unanswered', async (t) => {
  // Node hands CONNECT to the server's 'connect' listeners, never to Fastify, and without one destroys the socket.
  for (const [target, allow] of [['example.com:443', ''], ['/', 'GET, HEAD']] as const) {
    await t.test(target, async (t) => {
      const response = await send('CONNECT', target, { host: 'example.com:443' })
      t.equal(response.status, 405)
      t.equal(response.headers.allow, allow, allow ? 'the methods of the address it names' : 'no method of ours reaches another host\'s port')
      t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
      t.equal(response.body, ERRORS.TUNNEL_REFUSED.message)
      t.equal(response.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'")
      t.equal(response.headers['x-content-type-options'], 'nosniff')
      t.equal(response.headers.connection, 'close')
      await assertStillServing(t)
    })
  }
})

t.test('a client that resets its connection right after a CONNECT takes nothing down', async (t) => {
  for (let i = 0; i < 5; i++) {
    const socket = connect(port, '127.0.0.1').on('error', () => {})
    await once(socket, 'connect')
    // More than the request: the refusal meets a connection already reset.
    socket.write(`CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n${'x'.repeat(64 * 1024)}`)
    socket.resetAndDestroy()
  }
  await assertStillServing(t)
})

t.test('nothing above info was logged', async (t) => {
  t.same(logs.filter((entry) => entry.level >= 40).map((entry) => entry.msg), [])
})
