import { spawnSync } from 'node:child_process'
import { cp, mkdtemp, realpath, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/**
 * `npm test -- <files>` runs only those files and exits with their outcome:
 * the whole suite's coverage thresholds do not apply to a part of it, which
 * once made a passing file exit 1 without a word why.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * A copy of the project with its build, sharing node_modules: tap keeps its
 * state in .tap/ of the folder it runs in, where this run of tap is writing
 * its coverage. Sources first, then the build, so the build is fresh.
 */
const copy = await realpath(await mkdtemp(join(tmpdir(), 'test-command-')))
t.teardown(() => rm(copy, { recursive: true, force: true }))
for (const entry of ['src', 'static', 'test', 'build', 'package.json', 'tsconfig.json', 'dist']) await cp(join(ROOT, entry), join(copy, entry), { recursive: true })
await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'))

/**
 * `npm test -- …args` as a person runs it, from a clean environment: this run
 * of tap hands its own (coverage included) to whatever a test spawns, through
 * variables that `env -i` leaves behind.
 */
function npmTest (...args: string[]) {
  const person = ['PATH', 'HOME'].flatMap((name) => process.env[name] === undefined ? [] : [`${name}=${process.env[name]}`])
  const run = spawnSync('env', ['-i', ...person, process.execPath, 'test/run.mjs', ...args], { cwd: copy, encoding: 'utf8', timeout: 90_000 })
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

t.test('one passing file that covers little of src/: its tests run, without coverage, and the command succeeds', async (t) => {
  const { status, output } = npmTest('test/server/page-meta.test.ts')
  t.equal(status, 0, 'the command succeeds', { output })
  t.ok(output.includes('Running the named tests without coverage'), 'it says coverage is off, and why')
  t.ok(/# \{ total: \d+, pass: \d+ \}/.test(output), 'every test passed')
})

t.test('one failing file: the command fails', async (t) => {
  const { status, output } = npmTest('test/fixtures/failing.test.ts')
  t.equal(status, 1, 'the command fails', { output })
  t.ok(output.includes('fail: 1'), 'and says which failed')
})
