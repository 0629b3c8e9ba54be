// npm test: builds, then runs the tests with tap.
//   npm test                      the whole suite, held to the coverage thresholds of package.json ("tap")
//   npm test -- <files, dirs, globs>  only those, without coverage: the thresholds are for the whole suite,
//                                     and one file alone covers too little of src/ to meet them
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const tap = join(dirname(require.resolve('tap/package.json')), require('tap/package.json').bin.tap)

const args = process.argv.slice(2)
const subset = args.some((arg) => !arg.startsWith('-'))

const run = (script, scriptArgs) => spawnSync(process.execPath, [script, ...scriptArgs], { cwd: root, stdio: 'inherit' }).status ?? 1

// A subset reuses a build that is still fresh; the whole suite always starts from a clean one.
const built = run(join(root, 'build', 'cli.mjs'), ['--quiet', ...(subset ? ['--if-stale'] : [])])
if (built !== 0) process.exit(built)
if (subset) console.log('Running the named tests without coverage: its thresholds apply to the whole suite (npm test).')
process.exit(run(tap, subset ? ['--disable-coverage', ...args] : args))
