import * as esbuild from 'esbuild'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { clientOptions } from '../../build/client.mjs'
import { initialOutputs, screenOutputs } from '../../build/manifest.mjs'

/**
 * What a page with a form adds to the JavaScript hydration waits for: the
 * shell's entry and one hydrating the contact page of the test fixture,
 * built together with the app's options. The page's chunk (its component,
 * the form kit and its submit logic) is what its documents preload beside
 * the shell; the app's budget (size-budget.test.ts) has little room left, so
 * the kit's share is held to its own, and the shell never carries the kit.
 */

const SHELL = 'src/client/entry.tsx'
const WITH_FORM = 'test/fixtures/contact-form/client.tsx'
const CONTACT_VIEW = 'test/fixtures/contact-form/contact.tsx'
const KIT_MODULES = /^src\/ui\/forms\/(form|field|submit)\.tsx?$/
const KIT_BUDGET_BYTES = 3 * 1024

t.test(`a page with a form adds at most ${KIT_BUDGET_BYTES / 1024} KiB gzip to the initial JavaScript, and only to its own documents`, async (t) => {
  const outdir = await mkdtemp(`${tmpdir()}/agent-stack-kit-size-`)
  t.teardown(() => rm(outdir, { recursive: true, force: true }))
  const { metafile } = await esbuild.build({ ...clientOptions, entryPoints: [SHELL, WITH_FORM], outdir, sourcemap: false })
  const gzipBytes = async (files: Iterable<string>) => {
    let sum = 0
    for (const file of files) sum += gzipSync(await readFile(file), { level: 9 }).length
    return sum
  }
  const shellFiles = initialOutputs(metafile, SHELL)
  const shellInputs = shellFiles.flatMap((file) => Object.keys(metafile.outputs[file]?.inputs ?? {}))
  t.notOk(shellInputs.some((input) => KIT_MODULES.test(relative(process.cwd(), input))), 'the shell holds none of the form kit')

  const contactChunks = screenOutputs(metafile, { contact: CONTACT_VIEW }, SHELL).contact ?? []
  t.ok(contactChunks.length >= 1, 'the contact page is a chunk of its own')
  const shell = await gzipBytes(shellFiles)
  const added = await gzipBytes(new Set([...initialOutputs(metafile, WITH_FORM), ...contactChunks])) - shell
  t.comment(`the form kit and its page add ${(added / 1024).toFixed(2)} KiB gzip to the shell's ${(shell / 1024).toFixed(1)} KiB`)
  t.ok(added > 512, 'the measurement covers the kit (it is more than half a KiB)')
  t.ok(added <= KIT_BUDGET_BYTES, `${(added / 1024).toFixed(2)} KiB ≤ ${KIT_BUDGET_BYTES / 1024} KiB`)
})
