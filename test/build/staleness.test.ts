import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t, { type Test } from 'tap'
import { isStale } from '../../build/staleness.mjs'

// `npm test -- <files>` and `npm start` build only when this says so: a source it missed would be tested or served
// from an old build.

const BUILT_AT = new Date('2026-01-01T12:00:00Z')
const BEFORE = new Date('2026-01-01T11:00:00Z')
const AFTER = new Date('2026-01-01T13:00:00Z')

/** A project whose every source predates its build. */
async function builtProject (t: Test) {
  const project = await mkdtemp(join(tmpdir(), 'staleness-'))
  t.teardown(() => rm(project, { recursive: true, force: true }))
  const write = async (path: string, time: Date) => {
    const file = join(project, path)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, path)
    await utimes(file, time, time)
  }
  for (const path of ['src/ui/deep/module.ts', 'static/favicon.svg', 'build/client.mjs', 'package.json', 'package-lock.json', 'docs/guide.md']) await write(path, BEFORE)
  for (const dir of ['src/ui/deep', 'src/ui', 'src', 'static', 'build', 'docs']) await utimes(join(project, dir), BEFORE, BEFORE)
  const manifest = join(project, 'dist', 'manifest.json')
  await write('dist/manifest.json', BUILT_AT)
  return { project, manifest, write }
}

t.test('a build is stale when it is missing, or older than a source, however deep', async (t) => {
  const { project, manifest, write } = await builtProject(t)
  t.equal(await isStale({ project, manifest }), false, 'every source older than the build: fresh')
  t.equal(await isStale({ project, manifest: join(project, 'dist', 'none.json') }), true, 'no manifest: never built, or a build that did not finish')
  for (const path of ['src/ui/deep/module.ts', 'static/favicon.svg', 'build/client.mjs', 'package.json', 'package-lock.json']) {
    await write(path, AFTER)
    t.equal(await isStale({ project, manifest }), true, `${path} changed after the build`)
    await write(path, BEFORE)
  }
  for (const dir of ['src/ui/deep', 'static']) {
    await utimes(join(project, dir), AFTER, AFTER)
    t.equal(await isStale({ project, manifest }), true, `${dir}/ changed after the build: a file added or removed in it`)
    await utimes(join(project, dir), BEFORE, BEFORE)
  }
})

t.test('what the build does not read leaves it fresh', async (t) => {
  const { project, manifest, write } = await builtProject(t)
  await write('docs/guide.md', AFTER)
  await write('test/new.test.ts', AFTER)
  await write('README.md', AFTER)
  t.equal(await isStale({ project, manifest }), false)
})
