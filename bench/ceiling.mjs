// The ceiling: a bare Fastify server answering the benchmarked routes with the
// exact bytes and headers the app produced, precomputed. No rendering, no
// validation, no plugins: the best a Node server can do for these responses.
import Fastify from 'fastify'
import { readFile } from 'node:fs/promises'

const [fixturesPath, port] = process.argv.slice(2)
const fixtures = JSON.parse(await readFile(fixturesPath, 'utf8'))

const app = Fastify({ logger: false })
// Accept any body without parsing it: the ceiling does no work on input.
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', (_request, payload, done) => { payload.resume(); payload.on('end', () => done(null)) })

// One route per method and path; a fixture captured for an address with a
// query parameter (`unique=`) answers the requests whose address has it.
const routes = new Map()
for (const fixture of fixtures) {
  const key = `${fixture.method} ${fixture.path}`
  if (!routes.has(key)) routes.set(key, [])
  routes.get(key).push({ ...fixture, body: Buffer.from(fixture.body, 'base64') })
}
for (const variants of routes.values()) {
  const plain = variants.find((fixture) => !fixture.queryParameter)
  const withQuery = variants.filter((fixture) => fixture.queryParameter)
  const send = (reply, fixture) => reply.code(fixture.status).headers(fixture.headers).send(fixture.body)
  app.route({
    method: variants[0].method,
    url: variants[0].path,
    handler: withQuery.length === 0
      ? (_request, reply) => send(reply, plain)
      : (request, reply) => send(reply, withQuery.find((fixture) => request.url.includes(`${fixture.queryParameter}=`)) ?? plain)
  })
}

await app.listen({ port: Number(port), host: '127.0.0.1' })
process.send?.('ready')
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
