// The app's exact answers replayed, by the last argument: fastify (the ceiling), http (Node's own server, which the
// ceiling must come close to) or reply (Fastify's reply API: not a ceiling, how much of it any Fastify route keeps).
// docs/performance.md, Method. The first two use replay(): Fastify's reply API copies and checks every header, and a
// ceiling that reads low flatters the app.
import Fastify from 'fastify'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'

const [fixturesPath, port, kind = 'fastify'] = process.argv.slice(2)
const fixtures = JSON.parse(await readFile(fixturesPath, 'utf8'))

function rawHeaders (headers, body) {
  const raw = []
  for (const [name, value] of Object.entries(headers)) for (const one of [value].flat()) raw.push(name, one)
  raw.push('content-length', String(body.length))
  return raw
}

// A fixture captured with a query parameter (`unique=`) answers the requests whose address has it.
const routes = new Map()
for (const fixture of fixtures) {
  const key = `${fixture.method} ${fixture.path}`
  if (!routes.has(key)) routes.set(key, [])
  const body = Buffer.from(fixture.body, 'base64')
  routes.get(key).push({ method: fixture.method, path: fixture.path, queryParameter: fixture.queryParameter, encoding: fixture.headers['content-encoding'], status: fixture.status, headers: rawHeaders(fixture.headers, body), replyHeaders: fixture.headers, body })
}

function fixtureFor (variants, url, acceptEncoding = '') {
  const forAddress = variants.filter((fixture) => fixture.queryParameter && url.includes(`${fixture.queryParameter}=`))
  const candidates = forAddress.length > 0 ? forAddress : variants.filter((fixture) => !fixture.queryParameter)
  // Compressed when the request accepts the encoding the app chose, as the app answered.
  return candidates.find((fixture) => fixture.encoding && acceptEncoding.includes(fixture.encoding)) ?? candidates.find((fixture) => !fixture.encoding)
}

const chooser = (variants) => variants.length === 1 ? () => variants[0] : (request) => fixtureFor(variants, request.url, request.headers['accept-encoding'])

const replay = (response, fixture) => response.writeHead(fixture.status, fixture.headers).end(fixture.body)

let close
if (kind === 'http') {
  const server = createServer((request, response) => {
    const queryAt = request.url.indexOf('?')
    const variants = routes.get(`${request.method} ${queryAt === -1 ? request.url : request.url.slice(0, queryAt)}`)
    // Read any body to its end, as Fastify does, before answering.
    request.resume()
    request.once('end', () => {
      if (!variants) return response.writeHead(404).end()
      replay(response, fixtureFor(variants, request.url, request.headers['accept-encoding']))
    })
  })
  server.listen(Number(port), '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  close = () => new Promise((resolve) => server.close(resolve))
} else if (kind === 'reply') {
  const app = Fastify({ logger: false })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, body))
  for (const variants of routes.values()) {
    const fixtureOf = chooser(variants)
    app.route({
      method: variants[0].method,
      url: variants[0].path,
      handler (request, reply) {
        const fixture = fixtureOf(request)
        reply.code(fixture.status).headers(fixture.replyHeaders).send(fixture.body)
      }
    })
  }
  await app.listen({ port: Number(port), host: '127.0.0.1' })
  close = () => app.close()
} else {
  const app = Fastify({ logger: false })
  // Hijacked: no serialization, no onSend, no header copies. The handler returns nothing, or Fastify would send it.
  const send = (reply, fixture) => { replay(reply.hijack().raw, fixture) }
  for (const variants of routes.values()) {
    const fixtureOf = chooser(variants)
    app.route({
      method: variants[0].method,
      url: variants[0].path,
      // A body is read as the bare server reads it: Fastify's body pipeline costs more than the rest of its handling.
      // The hook never calls `done`, so Fastify goes no further; the handler, which it requires, answers GETs only.
      ...(variants[0].method === 'GET' ? {} : {
        onRequest (request, reply, _done) {
          request.raw.resume()
          request.raw.once('end', () => send(reply, fixtureOf(request)))
        }
      }),
      handler: (request, reply) => send(reply, fixtureOf(request))
    })
  }
  await app.listen({ port: Number(port), host: '127.0.0.1' })
  close = () => app.close()
}
process.send?.('ready')
// The bench reads the CPU each server spends per request, finer than /proc's 10 ms ticks.
process.on('message', (message) => {
  if (message === 'cpu-usage') process.send({ cpuUsage: process.cpuUsage() })
})
process.on('SIGTERM', () => close().then(() => process.exit(0)))
