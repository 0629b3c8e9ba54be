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

for (const fixture of fixtures) {
  const body = Buffer.from(fixture.body, 'base64')
  app.route({
    method: fixture.method,
    url: fixture.path,
    handler: (_request, reply) => reply.code(fixture.status).headers(fixture.headers).send(body)
  })
}

await app.listen({ port: Number(port), host: '127.0.0.1' })
process.send?.('ready')
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
