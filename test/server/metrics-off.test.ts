import { createRequire } from 'node:module'
import t from 'tap'
import { build } from '../helpers/app.js'

// Its own file: the other metrics tests import the recorder, and with it prom-client, before any app starts.
const moduleCache = createRequire(import.meta.url).cache
const promClientLoaded = () => Object.keys(moduleCache).some((path) => path.includes('/node_modules/prom-client/'))

t.test('an app without METRICS_PORT starts without loading prom-client; one with it loads it', async (t) => {
  await build(t)
  t.notOk(promClientLoaded(), 'metrics off: prom-client was never loaded')
  const { app } = await build(t, { env: { METRICS_PORT: '0' } })
  t.ok(app.metrics, 'metrics on')
  t.ok(promClientLoaded(), 'metrics on: prom-client is loaded, so the check above can see it')
})
