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
import { startListening } from '../helpers/process.js'

const PROBE = fileURLToPath(new URL('../helpers/async-local-storage-probe.mjs', import.meta.url))

const bundles = {
  production: join(DIST_DIR, 'server', 'main.js'),
  // Two levels under the project, like dist/server, so it finds the same client build and packages.
  development: join(DIST_DIR, 'server-development', 'main.js')
}

t.test('the server bundle holds React\'s streaming and string renderers in the mode it was built for, and no other', async (t) => {
  await buildServer({ mode: 'development', outdir: dirname(bundles.development) })
  for (const [mode, file] of Object.entries(bundles)) {
    const code = await readFile(file, 'utf8')
    const other = mode === 'production' ? 'development' : 'production'
    for (const renderer of ['react-dom-server', 'react-dom-server-legacy']) {
      t.ok(code.includes(`${renderer}.node.${mode}.js`), `${mode}: ${renderer} in its ${mode} build`)
      t.notOk(code.includes(`${renderer}.node.${other}.js`), `${mode}: not the ${other} one`)
    }
    t.notOk(/react-dom-server(-legacy)?\.(browser|edge|bun)\./.test(code), `${mode}: nor a renderer for another runtime`)
  }
})

// Resolving and compiling hundreds of package files was half the time to readiness.
t.test('the production bundle holds every package it runs: it loads nothing but Node\'s own modules', async (t) => {
  const code = await readFile(bundles.production, 'utf8')
  const loaded = [...code.matchAll(/^import [^;]*?from "([^"]+)"|__require\("([^"]+)"\)|import\("([^"]+)"\)/gm)].map((match) => match[1] ?? match[2] ?? match[3] ?? '')
  t.ok(loaded.length > 10, `its imports were found (${loaded.length})`)
  const packages = [...new Set(loaded.filter((specifier) => !isBuiltin(specifier)))]
  t.same(packages, ['pino-pretty'], 'only the developer\'s log formatter, loaded when LOG_PRETTY is set')
})

// React's Node renderer would enter an AsyncLocalStorage for each render; on
// Node 20 that taxes every later request (src/server/render-request-storage.ts).
for (const mode of ['production', 'development'] as const) {
  t.test(`the built server renders pages without entering an AsyncLocalStorage (React's ${mode} build)`, async (t) => {
    if (!existsSync(bundles[mode])) await buildServer({ mode, outdir: dirname(bundles[mode]) })
    const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: mode, NODE_OPTIONS: `--import=${PROBE}` }, bundles[mode])
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

    t.equal(server.stderr(), 'probe loaded\n', 'the probe ran, and nothing entered an AsyncLocalStorage')
  })
}
