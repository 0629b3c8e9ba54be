import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { allCodeBlocks, where } from '../helpers/doc-blocks.js'
import { ROOT } from '../helpers/dockerfile.js'
import { projectCopy, runIn, TAP, TSC } from '../helpers/project-copy.js'

/**
 * Every code block of the README and docs/ is code a newcomer pastes first, so
 * each is checked here as they would use it. TypeScript blocks name their file
 * on their first line: each document's files are written into a copy of the
 * project, which must then type-check, build, and pass the tests among them.
 */

// Each document's files type-check, build and run in a copy of their own: minutes, not the suite's two.
t.setTimeout(15 * 60_000)

const blocks = allCodeBlocks(ROOT)
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }

const fileBlocks = blocks.filter((block) => block.path !== undefined)
const docsWithFiles = [...new Set(fileBlocks.map((block) => block.doc))]

for (const doc of docsWithFiles) {
  t.test(`${doc}'s files, pasted into the project, type-check, build and pass their tests`, async (t) => {
    const files = fileBlocks.filter((block) => block.doc === doc)
    const copy = projectCopy(t)
    for (const block of files) {
      const path = join(copy, block.path!)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, block.code)
    }
    const paths = files.map((block) => block.path!)
    writeFileSync(join(copy, 'tsconfig.docs.json'), JSON.stringify({ extends: './tsconfig.json', include: paths }))
    const [typed, typeErrors] = runIn(copy, process.execPath, [TSC, '--noEmit', '-p', 'tsconfig.docs.json'])
    t.ok(typed, 'they type-check', typeErrors)
    const [built, buildErrors] = runIn(copy, 'npm', ['run', '--silent', 'build'])
    t.ok(built, 'npm run build succeeds with them', buildErrors)
    const tests = paths.filter((path) => /^test\/.*\.test\.tsx?$/.test(path))
    t.ok(tests.length > 0, `${doc} shows a test for its example`)
    // npm test holds every screen to its JavaScript budget: a pasted example must not be the one that fails it.
    for (const test of [...tests, 'test/build/size-budget.test.ts']) {
      const [passed, diagnostics] = runIn(copy, process.execPath, [TAP, '--disable-coverage', test])
      t.ok(passed, `${test} passes`, diagnostics)
    }
  })
}

t.test('every TypeScript block names the file it is', async (t) => {
  for (const block of blocks.filter((block) => /^tsx?$/.test(block.lang))) {
    t.ok(block.path, `${where(block)} starts with a line like "// src/screens/notes.tsx"`)
  }
})

/** The first word of each command in a shell block, beside npm's own. */
const COMMANDS = new Set(['npm', 'docker', 'kubectl', 'openssl', 'curl'])

t.test('every shell block runs commands the project has', async (t) => {
  for (const block of blocks.filter((block) => block.lang === 'sh')) {
    const commands = block.code.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line && !line.startsWith('#'))
      .flatMap((line) => line.split(/&&|;/).map((part) => part.trim()))
    for (const command of commands) {
      const [tool = '', verb = '', script = ''] = command.split(/\s+/)
      t.ok(COMMANDS.has(tool), `${where(block)}: "${command}" is a command a reader has`)
      if (tool !== 'npm') continue
      const name = verb === 'run' ? script : verb
      const builtIn = ['install', 'ci'].includes(verb)
      t.ok(builtIn || name in pkg.scripts, `${where(block)}: "${command}" names a script of package.json`)
    }
  }
})

t.test('every YAML block parses', async (t) => {
  for (const block of blocks.filter((block) => block.lang === 'yaml')) {
    t.doesNotThrow(() => parse(block.code), where(block))
  }
})

t.test('the one nginx block is the one the rolling-restart test runs', async (t) => {
  const nginx = blocks.filter((block) => block.lang === 'nginx')
  t.same(nginx.map((block) => block.doc), ['docs/deploying.md'], 'test/helpers/readme.ts reads it there')
})

t.test('a layout block names only folders and files that exist', async (t) => {
  for (const block of blocks.filter((block) => block.lang === '')) {
    const paths = block.code.split('\n').map((line) => /^(\S+\/\S*)/.exec(line)?.[1]).filter((path) => path !== undefined)
    t.ok(paths.length > 0, `${where(block)} is a layout`)
    for (const path of paths) t.ok(existsSync(join(ROOT, path)), `${where(block)}: ${path} exists`)
  }
})

t.test('no block is in a language nothing checks', async (t) => {
  const checked = new Set(['ts', 'tsx', 'sh', 'yaml', 'nginx', ''])
  for (const block of blocks) t.ok(checked.has(block.lang), `${where(block)} (${block.lang})`)
})
