import t, { type Test } from 'tap'
import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import Module from 'node:module'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { DIST_DIR } from '../../src/server/app.js'
import { TEST_SECRETS } from '../helpers/app.js'
import { SERVER_ENTRY, startListening } from '../helpers/process.js'

/**
 * The built server starts from V8's code cache of its bundle, which the build
 * writes beside it (src/server/main.ts): compiling the bundle was about a
 * quarter of the time to readiness. A cache V8 refuses costs speed, never the start.
 */

const BUILT = join(DIST_DIR, 'server')
const compiled = (line: { msg?: string }) => line.msg === 'compiled the server'
const debugEnv = { ...TEST_SECRETS, NODE_ENV: 'production', LOG_LEVEL: 'debug' }

/** The built server as its image runs it, without tap's hooks (with them, source maps are on: the last test). */
const startAsDeployed = (t: Test, entry = SERVER_ENTRY) => startListening(t, debugEnv, entry, { asDeployed: true })

t.test('the built server compiles its bundle from the code cache the build wrote', async (t) => {
  const bundle = join(BUILT, 'server.js')
  const script = new Script(Module.wrap(await readFile(bundle, 'utf8')), { filename: bundle, cachedData: await readFile(`${bundle}.code-cache`) })
  t.equal(script.cachedDataRejected, false, 'V8 takes the cache for this bundle')

  const server = await startAsDeployed(t)
  t.equal((await server.waitForLog(compiled)).codeCache, 'used')
  t.equal((await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })).status, 200)
  t.equal(server.stderr(), '', 'with nothing on stderr (no experimental feature warns)')
})

t.test('a cache V8 refuses is left aside with one warning, and the server serves as usual', async (t) => {
  // Two levels under the project, like dist/server, so it finds the same client build.
  const copy = join(DIST_DIR, 'server-refused-cache')
  await cp(BUILT, copy, { recursive: true })
  t.teardown(() => rm(copy, { recursive: true, force: true }))
  const cache = await readFile(join(copy, 'server.js.code-cache'))
  // What another build's cache looks like to V8: its checks no longer match.
  cache.fill(0, 0, 64)
  await writeFile(join(copy, 'server.js.code-cache'), cache)

  const server = await startAsDeployed(t, join(copy, 'main.js'))
  t.equal((await server.waitForLog(compiled)).codeCache, 'rejected')
  t.match(server.logs().find((line) => line.level === 40)?.msg, /^V8 refused the code cache/)
  t.equal((await fetch(`${server.url}/resources/readiness`)).status, 200)
})

t.test('without a cache the server compiles its bundle as usual', async (t) => {
  const copy = join(DIST_DIR, 'server-without-cache')
  await cp(BUILT, copy, { recursive: true })
  t.teardown(() => rm(copy, { recursive: true, force: true }))
  await rm(join(copy, 'server.js.code-cache'))

  const server = await startAsDeployed(t, join(copy, 'main.js'))
  t.equal((await server.waitForLog(compiled)).codeCache, 'absent')
  t.equal((await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })).status, 200)
})

// npm start runs with --enable-source-maps, which Node applies only to what its own loader compiled.
t.test('with source maps on, as npm start runs it, Node\'s own loader compiles the bundle, so stack traces name the sources', async (t) => {
  const server = await startListening(t, { ...debugEnv, NODE_OPTIONS: '--enable-source-maps' })
  t.equal((await server.waitForLog(compiled)).codeCache, 'skipped')
  t.equal((await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })).status, 200)
})
