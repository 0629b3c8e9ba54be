import t from 'tap'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { isBuiltin } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildServer } from '../../build.mjs'
import { DIST_DIR } from '../../src/server/app.js'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { freePort, startListening } from '../helpers/process.js'

const PROBE = fileURLToPath(new URL('../helpers/async-local-storage-probe.mjs', import.meta.url))

const OPENTELEMETRY_SDK = ['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources']

/** Each mode's launcher (main.js); its bundle is server.js beside it. */
const bundles = {
  production: join(DIST_DIR, 'server', 'main.js'),
  // Two levels under the project, like dist/server, so it finds the same client build and packages.
  development: join(DIST_DIR, 'server-development', 'main.js')
}
const bundleOf = (launcher: string) => join(dirname(launcher), 'server.js')

t.test('the server bundle holds React\'s streaming and string renderers in the mode it was built for, and no other', async (t) => {
  await buildServer({ mode: 'development', outdir: dirname(bundles.development) })
  for (const [mode, launcher] of Object.entries(bundles)) {
    const code = await readFile(bundleOf(launcher), 'utf8')
    const other = mode === 'production' ? 'development' : 'production'
    for (const renderer of ['react-dom-server', 'react-dom-server-legacy']) {
      t.ok(code.includes(`${renderer}.node.${mode}.js`), `${mode}: ${renderer} in its ${mode} build`)
      t.notOk(code.includes(`${renderer}.node.${other}.js`), `${mode}: not the ${other} one`)
    }
    t.notOk(/react-dom-server(-legacy)?\.(browser|edge|bun)\./.test(code), `${mode}: nor a renderer for another runtime`)
  }
})

// Resolving and compiling hundreds of package files was half the time to readiness.
/** What the bundle requires: `onDemand`, inside an import() that the build turned into a require() when called; `always`, the rest. */
async function requiresOf (launcher: string) {
  const code = await readFile(bundleOf(launcher), 'utf8')
  const onDemandPattern = /Promise\.resolve\(\)\.then\(\(\) => __toESM\(require\("([^"]+)"\)/g
  const specifiers = (text: string, pattern: RegExp) => [...new Set([...text.matchAll(pattern)].map((match) => match[1] ?? ''))]
  const onDemand = specifiers(code, onDemandPattern)
  // Not the requires that Ajv writes into the code it generates, which sit in strings.
  const always = specifiers(code.replace(onDemandPattern, ''), /(?<![`'"])\brequire\("([^"]+)"\)/g)
  return { onDemand, always }
}

t.test('the production bundle holds every package it runs: at start-up it loads nothing but Node\'s own modules', async (t) => {
  const { onDemand, always } = await requiresOf(bundles.production)
  t.ok(always.length > 10, `its requires were found (${always.length})`)
  t.same(always.filter((specifier) => !isBuiltin(specifier)), [], 'no package is loaded at start-up')
  t.same(onDemand.filter((specifier) => !isBuiltin(specifier)).sort(), ['@fastify/otel', ...OPENTELEMETRY_SDK, 'pino-pretty'].sort(), 'only the developer\'s log formatter (LOG_PRETTY) and tracing\'s packages (OTEL_EXPORTER_OTLP_ENDPOINT), on demand')
})

t.test('OpenTelemetry\'s SDK is never loaded unless tracing is configured', async (t) => {
  const { onDemand, always } = await requiresOf(bundles.production)
  // prom-client requires the API (a no-op facade until an SDK registers) at start-up, so it is bundled.
  t.notOk([...onDemand, ...always].includes('@opentelemetry/api'), '@opentelemetry/api: bundled, not loaded from node_modules')
  for (const name of ['@fastify/otel', ...OPENTELEMETRY_SDK]) {
    t.ok(onDemand.includes(name), `${name}: loaded on demand`)
    t.notOk(always.includes(name), `${name}: never at start-up`)
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
