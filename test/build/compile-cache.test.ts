import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { DIST_DIR } from '../../src/server/app.js'
import { startListening } from '../helpers/process.js'

// Before, the cache sat in the system's temporary folder, where each build's content-named files added entries that
// no one removed (some 200 MB after a few days of tests); kept in the build, it goes with the build.
t.test("Node's compile cache is kept in the build the server starts from, and nothing is written to the temporary folder", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'compile-cache-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const build = join(dir, 'dist')
  const temporary = join(dir, 'tmp')
  await cp(DIST_DIR, build, { recursive: true, filter: (source) => !source.includes('.compile-cache') })
  await mkdir(temporary)
  // The server's packages outside its bundle (pino, the tracing SDK) resolve from beside the build.
  await symlink(join(dirname(DIST_DIR), 'node_modules'), join(dir, 'node_modules'))

  const server = await startListening(t, { TMPDIR: temporary }, join(build, 'server', 'main.js'))
  t.equal((await fetch(`${server.url}/resources/healthcheck`)).status, 200)
  server.child.kill('SIGTERM')
  t.same(await server.exited, { code: 0, signal: null })

  const cache = join(build, 'server', '.compile-cache')
  const versions = await readdir(cache)
  t.match(versions, [new RegExp(`^${process.version}-`)], "one folder, for this Node's version")
  t.ok((await readdir(join(cache, versions[0] ?? ''))).length > 1, "it holds the server's modules")
  t.same(await readdir(temporary), [], 'the temporary folder is left empty')
})
