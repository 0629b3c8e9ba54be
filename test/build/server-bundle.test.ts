import t from 'tap'
import { fileURLToPath } from 'node:url'
import { THEME_COOKIE_NAME } from '../../src/shared/theme.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { startListening } from '../helpers/process.js'

const PROBE = fileURLToPath(new URL('../helpers/async-local-storage-probe.mjs', import.meta.url))

// React's Node renderer would enter an AsyncLocalStorage for each render; on
// Node 20 that taxes every later request (src/server/render-request-storage.ts).
for (const NODE_ENV of ['production', 'development']) {
  t.test(`the built server renders pages without entering an AsyncLocalStorage (React's ${NODE_ENV} build)`, async (t) => {
    const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV, NODE_OPTIONS: `--import=${PROBE}` })
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
