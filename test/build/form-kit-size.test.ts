import * as esbuild from 'esbuild'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { clientOptions, initialOutputs } from '../../build.mjs'

/**
 * What a page with a form adds to the JavaScript hydration waits for: the
 * shell's entry and one hydrating the contact page of the test fixture (the
 * form kit, its submit logic and the page), built together with the app's
 * options. The app's budget (size-budget.test.ts) has little room left, so
 * the kit's share is held to its own.
 */

const SHELL = 'src/client/entry.tsx'
const WITH_FORM = 'test/fixtures/contact-form/client.tsx'
const KIT_BUDGET_BYTES = 3 * 1024

t.test(`a page with a form adds at most ${KIT_BUDGET_BYTES / 1024} KiB gzip to the initial JavaScript`, async (t) => {
  const outdir = await mkdtemp(join(tmpdir(), 'agent-stack-kit-size-'))
  t.teardown(() => rm(outdir, { recursive: true, force: true }))
  const { metafile } = await esbuild.build({ ...clientOptions, entryPoints: [SHELL, WITH_FORM], outdir, sourcemap: false })
  const gzipBytes = async (entry: string) => {
    let sum = 0
    for (const file of initialOutputs(metafile, entry)) sum += gzipSync(await readFile(file), { level: 9 }).length
    return sum
  }
  const shell = await gzipBytes(SHELL)
  const added = await gzipBytes(WITH_FORM) - shell
  t.comment(`the form kit and its page add ${(added / 1024).toFixed(2)} KiB gzip to the shell's ${(shell / 1024).toFixed(1)} KiB`)
  t.ok(added > 512, 'the measurement covers the kit (it is more than half a KiB)')
  t.ok(added <= KIT_BUDGET_BYTES, `${(added / 1024).toFixed(2)} KiB ≤ ${KIT_BUDGET_BYTES / 1024} KiB`)
})
