import t from 'tap'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { join } from 'node:path'
import { freePort } from '../helpers/process.js'

// The bench's servers that answer with the app's captured bytes: the ceiling (hijacked Fastify), Node's bare http
// server, and Fastify's ordinary reply. Each ratio the bench prints compares the app with one of them, so each must
// send exactly what the app sent, whatever it is asked. A fixture holds no header of the connection's (the bench drops
// content-length, date and the like when it captures one): each server writes those itself.
const CEILING = join(import.meta.dirname, '../../bench/ceiling.mjs')
const KINDS = ['fastify', 'http', 'reply'] as const

const page = Buffer.from('<!DOCTYPE html><title>Agent Stack</title>')
const compressed = Buffer.from([0x1b, 0x29, 0x00, 0xf8, 0x25, 0x82])
const unique = Buffer.from('<!DOCTYPE html><title>Rendered for you</title>')
const fixtures = [
  { method: 'GET', path: '/', status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY', vary: 'Cookie, Accept-Encoding' }, body: page },
  { method: 'GET', path: '/', status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY', vary: 'Cookie, Accept-Encoding', 'content-encoding': 'br' }, body: compressed },
  { method: 'GET', path: '/', queryParameter: 'unique', status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'server-timing': 'cache;desc=miss' }, body: unique },
  { method: 'POST', path: '/resources/theme-switch', status: 303, headers: { location: '/', 'set-cookie': ['en_theme=light; Path=/; HttpOnly', 'toast=; Path=/; Max-Age=0'] }, body: Buffer.alloc(0) }
].map((fixture) => ({ ...fixture, body: fixture.body.toString('base64'), bytes: fixture.body.length }))

interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: Buffer }

function ask (port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }))
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

t.test('every replaying server answers each request with the bytes the app answered it', async (t) => {
  const fixturesPath = join(t.testdir(), 'fixtures.json')
  await writeFile(fixturesPath, JSON.stringify(fixtures))
  for (const kind of KINDS) {
    t.test(kind, async (t) => {
      const port = await freePort()
      const server = fork(CEILING, [fixturesPath, String(port), kind], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
      t.teardown(() => { server.kill('SIGTERM') })
      await once(server, 'message')

      const plain = await ask(port, 'GET', '/')
      t.equal(plain.status, 200)
      t.same(plain.body, page)
      t.equal(plain.headers['x-frame-options'], 'DENY')
      t.equal(plain.headers.vary, 'Cookie, Accept-Encoding')
      t.equal(plain.headers['content-length'], String(page.length))
      t.equal(plain.headers['content-encoding'], undefined)

      const asBrowsersAsk = await ask(port, 'GET', '/', { 'accept-encoding': 'gzip, deflate, br, zstd' })
      t.equal(asBrowsersAsk.headers['content-encoding'], 'br', 'compressed when the request accepts what the app chose')
      t.same(asBrowsersAsk.body, compressed)

      const rendered = await ask(port, 'GET', '/?unique=b-17')
      t.same(rendered.body, unique, 'an address with the captured query parameter gets its own fixture')
      t.equal(rendered.headers['server-timing'], 'cache;desc=miss')

      const form = await ask(port, 'POST', '/resources/theme-switch', { 'content-type': 'application/x-www-form-urlencoded' }, 'theme=light&redirectTo=%2F')
      t.equal(form.status, 303)
      t.equal(form.headers.location, '/')
      t.same(form.headers['set-cookie'], ['en_theme=light; Path=/; HttpOnly', 'toast=; Path=/; Max-Age=0'], 'each cookie in a header of its own')
      t.equal(form.body.length, 0)
    })
  }
})
