// The ceiling: a server answering the benchmarked routes with the exact bytes
// and headers the app produced, precomputed. No rendering, no validation, no
// plugins. Two of them, by the last argument:
//   fastify  bare Fastify: the best a Fastify server can do for these
//            responses; the app's ratios are taken against it.
//   http     Node's own http server, the same bytes: what a Node server can
//            do at all. The bench checks that the Fastify ceiling comes close
//            to it, which a generator that runs out first would not let show.
import Fastify from 'fastify'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'

const [fixturesPath, port, kind = 'fastify'] = process.argv.slice(2)
const fixtures = JSON.parse(await readFile(fixturesPath, 'utf8'))

// One entry per method and path; a fixture captured for an address with a
// query parameter (`unique=`) answers the requests whose address has it.
const routes = new Map()
for (const fixture of fixtures) {
  const key = `${fixture.method} ${fixture.path}`
  if (!routes.has(key)) routes.set(key, [])
  routes.get(key).push({ ...fixture, body: Buffer.from(fixture.body, 'base64') })
}
const fixtureFor = (variants, url) => variants.find((fixture) => fixture.queryParameter && url.includes(`${fixture.queryParameter}=`)) ?? variants.find((fixture) => !fixture.queryParameter)

let close
if (kind === 'http') {
  const server = createServer((request, response) => {
    const queryAt = request.url.indexOf('?')
    const variants = routes.get(`${request.method} ${queryAt === -1 ? request.url : request.url.slice(0, queryAt)}`)
    // Read any body to its end, as Fastify does, before answering.
    request.resume()
    request.once('end', () => {
      if (!variants) return response.writeHead(404).end()
      const fixture = fixtureFor(variants, request.url)
      response.writeHead(fixture.status, fixture.headers).end(fixture.body)
    })
  })
  server.listen(Number(port), '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  close = () => new Promise((resolve) => server.close(resolve))
} else {
  const app = Fastify({ logger: false })
  // Accept any body without parsing it: the ceiling does no work on input.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => { payload.resume(); payload.on('end', () => done(null)) })
  for (const variants of routes.values()) {
    const send = (reply, fixture) => reply.code(fixture.status).headers(fixture.headers).send(fixture.body)
    app.route({
      method: variants[0].method,
      url: variants[0].path,
      handler: variants.length === 1 ? (_request, reply) => send(reply, variants[0]) : (request, reply) => send(reply, fixtureFor(variants, request.url))
    })
  }
  await app.listen({ port: Number(port), host: '127.0.0.1' })
  close = () => app.close()
}
process.send?.('ready')
process.on('SIGTERM', () => close().then(() => process.exit(0)))
