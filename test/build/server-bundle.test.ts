import t, { type Test } from 'tap'
import type * as esbuild from 'esbuild'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { isBuiltin, SourceMap, type SourceMapPayload } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildServer } from '../../build/server.mjs'
import { DIST_DIR } from '../../src/server/app.js'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { freePort, startListening, startServer } from '../helpers/process.js'

/**
 * The built server: our code and the packages it runs in ES modules under
 * dist/server, started by `node dist/server/main.js` everywhere (npm start,
 * the image, these tests). Left in node_modules: pino (its transports run
 * from files of their own) and what is loaded only on demand.
 */

const BUILT = join(DIST_DIR, 'server')
const OPENTELEMETRY_SDK = ['@fastify/otel', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources']

/** A server build of `mode` in a folder of the test's own; in `outdir` to run it (a folder of dist/, to serve dist/ as dist/server does). */
async function built (t: Test, mode: 'production' | 'development', outdir?: string) {
  outdir ??= await mkdtemp(join(tmpdir(), `server-${mode}-`))
  t.teardown(() => rm(outdir, { recursive: true, force: true }))
  const { metafile } = await buildServer({ mode, outdir })
  return { outdir, metafile: metafile as esbuild.Metafile }
}

/** Every JavaScript file of a build, as one text. */
async function codeOf (dir: string): Promise<string> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.js'))
  return (await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')))).join('\n')
}

t.test('the server holds React\'s streaming and string renderers in the mode it was built for, and no other', async (t) => {
  for (const mode of ['production', 'development'] as const) {
    const code = await codeOf((await built(t, mode)).outdir)
    const other = mode === 'production' ? 'development' : 'production'
    for (const renderer of ['react-dom-server', 'react-dom-server-legacy']) {
      t.ok(code.includes(`${renderer}.node.${mode}.js`), `${mode}: ${renderer} in its ${mode} build`)
      t.notOk(code.includes(`${renderer}.node.${other}.js`), `${mode}: not the ${other} one`)
    }
  }
})

t.test('from node_modules the server loads pino at start-up, and OpenTelemetry\'s SDK only when tracing is configured', async (t) => {
  const { metafile } = await built(t, 'production')
  const imports = Object.values(metafile.outputs).flatMap((output) => output.imports).filter((imported) => imported.external && !isBuiltin(imported.path))
  const names = (kind: string) => [...new Set(imports.filter((imported) => imported.kind === kind).map((imported) => imported.path))].sort()
  t.same(names('import-statement').concat(names('require-call')), ['pino'], 'pino alone, whose transports run from files beside its own')
  t.same(names('dynamic-import'), OPENTELEMETRY_SDK.sort(), 'tracing\'s packages, on demand')
  t.notOk(imports.some((imported) => imported.path === '@opentelemetry/api'), '@opentelemetry/api, which prom-client requires at start-up, is bundled')
})

/** Where the source map of a built file says the first occurrence of `text` in it came from. */
async function originOf (file: string, text: string): Promise<string | undefined> {
  const code = await readFile(file, 'utf8')
  const before = code.slice(0, code.indexOf(text)).split('\n')
  const payload = JSON.parse(await readFile(`${file}.map`, 'utf8')) as SourceMapPayload
  return (new SourceMap(payload).findEntry(before.length - 1, (before.at(-1) ?? '').length) as { originalSource?: string }).originalSource
}

t.test('stack traces of the built server lead to src/: the maps say where, and main.js turns them on before loading the rest', async (t) => {
  const serve = (await readdir(BUILT)).find((file) => /^serve-.*\.js$/.test(file)) ?? 'no serve chunk'
  t.match(await originOf(join(BUILT, serve), 'could not start listening at'), /src\/server\/serve\.ts$/)

  // Reports, as the process ends, whether Node was mapping stack traces.
  const dir = await mkdtemp(join(tmpdir(), 'source-maps-probe-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const probe = join(dir, 'probe.mjs')
  await writeFile(probe, "process.on('exit', () => process.stderr.write(`source maps: ${process.sourceMapsEnabled}\\n`))\n")
  const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: 'production', NODE_OPTIONS: `--import=${probe}` })
  server.child.kill('SIGTERM')
  await server.exited
  t.equal(server.stderr(), 'source maps: true\n')
})

for (const mode of ['production', 'development'] as const) {
  t.test(`the built server (React's ${mode} build) renders pages, switches the theme and counts documents`, async (t) => {
    const { outdir } = mode === 'production' ? { outdir: BUILT } : await built(t, mode, join(DIST_DIR, 'server-development-test'))
    const metricsPort = await freePort()
    const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: mode, METRICS_PORT: String(metricsPort) }, join(outdir, 'main.js'))
    for (const theme of ['light', 'dark']) {
      const page = await fetch(`${server.url}/`, { headers: { cookie: `${THEME_COOKIE_NAME}=${theme}` } })
      t.equal(page.status, 200)
      t.match(await page.text(), new RegExp(`^<!DOCTYPE html><html lang="en" class="${theme}"[^]*<title>Agent Stack</title>[^]*</html>$`), `the ${theme} page, rendered whole`)
    }
    const missing = await fetch(`${server.url}/no-such-page`)
    t.equal(missing.status, 404)
    t.match(await missing.text(), /<title>Page not found \| Agent Stack<\/title>/)
    const switched = await fetch(`${server.url}/resources/theme-switch`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: 'theme=dark&redirectTo=%2F'
    })
    t.equal(switched.status, 303)
    t.match(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(), /^documents_rendered_total\{page="home",cache="miss"\} 2$/m, 'and metrics were counted')
  })
}

t.test('the server says which Node runs it once ready: Node 24, the engine package.json asks for', async (t) => {
  const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: 'production' })
  const ready = await server.waitForLog((line) => line.msg === 'ready')
  t.match(ready.node, /^24\.\d+\.\d+$/)
})

t.test('a pino transport runs in the built server: LOG_PRETTY=true formats the log with pino-pretty in pino\'s worker thread', async (t) => {
  const port = await freePort()
  const server = startServer(t, { ...TEST_SECRETS, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), LOG_PRETTY: 'true' })
  await server.waitForLog((line) => /^\[\d\d:\d\d:\d\d\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/.test(String(line.msg)))
  t.notOk(server.logs().some((line) => 'level' in line), 'no line of JSON: every one went through the transport')
  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null }, 'and it still exits cleanly, its worker with it')
  t.equal(server.stderr(), '')
})
