import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Test } from 'tap'
import { ROOT } from './dockerfile.js'

const require = createRequire(import.meta.url)
export const TAP = join(dirname(require.resolve('tap/package.json')), require('tap/package.json').bin.tap)
export const TSC = require.resolve('typescript/bin/tsc')

/** What a copy of the project needs to type-check, build and test; never dist/ or node_modules. */
const PROJECT = ['src', 'test', 'static', 'build', 'build.mjs', 'package.json', 'tsconfig.json', '.npmrc']
/** Linked, not copied: only read (the bench for its tests' types; the peer's installs are large). */
const LINKED = ['node_modules', 'bench']

/** A copy of the project in a temporary folder, removed when `t` ends. */
export function projectCopy (t: Test): string {
  const copy = mkdtempSync(join(tmpdir(), 'agent-stack-copy-'))
  t.teardown(() => rmSync(copy, { recursive: true, force: true }))
  for (const entry of PROJECT) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true })
  }
  for (const entry of LINKED) symlinkSync(join(ROOT, entry), join(copy, entry), 'dir')
  return copy
}

/** Runs a command in `cwd`; its output only when it failed, for the test's diagnostics. */
export function runIn (cwd: string, command: string, args: string[]): [boolean, { output?: string }] {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, PATH: `${join(cwd, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` } })
  return result.status === 0 ? [true, {}] : [false, { output: `${result.stdout}${result.stderr}`.trim().slice(-4000) }]
}
