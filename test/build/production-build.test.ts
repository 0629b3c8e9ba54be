import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildServer } from '../../build/server.mjs'
import { DIST_DIR } from '../../src/server/app.js'
import { DEV_EVENTS_PATH } from '../../src/server/dev/dev-tools.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { startListening } from '../helpers/process.js'

/**
 * The development loop's additions (src/server/dev/: the event stream, the
 * script in every document, failure details) exist only
 * in `npm run dev`'s server bundle. The production build, as `npm test` and
 * `npm start` make it, holds none of them, nor React's development build.
 */

/** Strings only the development tools write: their endpoint, their overlay's element, the browser API the script uses. */
const MARKERS = [DEV_EVENTS_PATH, 'agent-stack-dev-overlay', 'EventSource', 'The page failed to render']

const inputsOf = (metafile: { inputs: Record<string, unknown> }) => Object.keys(metafile.inputs)

t.test('the production server bundle leaves the development tools out; the development one has them', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'server-bundles-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const developmentInputs = async (mode: 'production' | 'development') => {
    const { metafile } = await buildServer({ mode, outdir: join(dir, mode) })
    return inputsOf(metafile ?? { inputs: {} }).filter((input) => input.startsWith('src/server/dev/'))
  }
  t.same(await developmentInputs('production'), [], 'no module of src/server/dev/ in production')
  t.ok((await developmentInputs('development')).includes('src/server/dev/dev-tools.ts'), 'the development bundle has them (the same main.ts chose)')
})

t.test('the built server and browser files hold no trace of them', async (t) => {
  const built = (await readdir(join(DIST_DIR, 'server'))).filter((file) => file.endsWith('.js'))
  t.ok(built.includes('main.js'), 'dist/server/main.js is there')
  for (const file of built) {
    const server = await readFile(join(DIST_DIR, 'server', file), 'utf8')
    t.same(MARKERS.filter((marker) => server.includes(marker)), [], `dist/server/${file}: none`)
  }
  const assets = join(DIST_DIR, 'client', 'assets')
  for (const file of (await readdir(assets)).filter((name) => name.endsWith('.js'))) {
    const code = await readFile(join(assets, file), 'utf8')
    t.same(MARKERS.filter((marker) => code.includes(marker)), [], `${file}: none`)
  }
  const client = JSON.parse(await readFile(join(DIST_DIR, 'client-meta.json'), 'utf8')) as { inputs: Record<string, unknown> }
  t.ok(inputsOf(client).includes('node_modules/react-dom/cjs/react-dom-client.production.js'), 'the browser gets React’s production build')
  t.notOk(inputsOf(client).some((input) => input.includes('.development.')), 'and nothing of its development build')
})

t.test('the production server has no event stream and sends no development script', async (t) => {
  const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: 'production' })
  const events = await fetch(`${server.url}${DEV_EVENTS_PATH}`, { headers: { accept: 'text/event-stream' } })
  t.equal(events.status, 404)
  // Not read whole: were it an event stream, it would never end.
  await events.body?.cancel()
  for (const path of ['/', '/no-such-page']) {
    const html = await (await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' } })).text()
    t.same(MARKERS.filter((marker) => html.includes(marker)), [], `${path}: no development script`)
  }
  // The log is production's: Fastify's lines, not the development server's one line.
  await server.waitForLog((line) => line.msg === 'request completed')
  t.notOk(server.logs().some((line) => /^GET \/ \d{3} \d+ ms$/.test(String(line.msg))))
})
