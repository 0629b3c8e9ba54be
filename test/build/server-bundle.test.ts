import t from 'tap'
import { existsSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildServer } from '../../build.mjs'
import { DIST_DIR } from '../../src/server/app.js'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { freePort, startListening } from '../helpers/process.js'

const PROBE = fileURLToPath(new URL('../helpers/async-local-storage-probe.mjs', import.meta.url))

const bundles = {
  production: join(DIST_DIR, 'server', 'main.js'),
  // Two levels under the project, like dist/server, so it finds the same client build and packages.
  development: join(DIST_DIR, 'server-development', 'main.js')
}

t.test('the server bundle holds one renderer, in the mode it was built for', async (t) => {
  await buildServer({ mode: 'development', outdir: dirname(bundles.development) })
  for (const [mode, file] of Object.entries(bundles)) {
    const code = await readFile(file, 'utf8')
    t.ok(code.includes(`react-dom-server.node.${mode}.js`), `${mode}: React's ${mode} renderer`)
    const other = mode === 'production' ? 'development' : 'production'
    t.notOk(code.includes(`react-dom-server.node.${other}.js`), `${mode}: not the ${other} one`)
    t.notOk(code.includes('react-dom-server-legacy'), `${mode}: nor the legacy renderer`)
  }
  t.ok((await stat(bundles.production)).size < 1024 * 1024, 'the production bundle is under 1 MiB')
})

t.test('OpenTelemetry is never imported unless tracing is configured: the bundle loads it by dynamic import() only', async (t) => {
  const code = await readFile(bundles.production, 'utf8')
  const packages = ['@fastify/otel', '@opentelemetry/api', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources']
  for (const name of packages) {
    t.ok(code.includes(`import("${name}")`), `${name}: imported on demand`)
    t.notMatch(code, new RegExp(`^import [^;]*from ["']${name}["']|require\\(["']${name}["']\\)`, 'm'), `${name}: never at start-up`)
  }
})

// React's Node renderer would enter an AsyncLocalStorage for each render; on
// Node 20 that taxes every later request (src/server/render-request-storage.ts).
for (const mode of ['production', 'development'] as const) {
  t.test(`the built server renders pages without entering an AsyncLocalStorage (React's ${mode} build)`, async (t) => {
    if (!existsSync(bundles[mode])) await buildServer({ mode, outdir: dirname(bundles[mode]) })
    // With metrics on: counting must not turn async hooks on either.
    const metricsPort = await freePort()
    const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: mode, NODE_OPTIONS: `--import=${PROBE}`, METRICS_PORT: String(metricsPort) }, bundles[mode])
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

    t.equal(server.stderr(), 'probe loaded\n', 'the probe ran, and nothing entered an AsyncLocalStorage')
  })
}
