import { readFile } from 'node:fs/promises'
import { dirname, join, posix } from 'node:path'
import type { Test } from 'tap'
import { codeBlocks } from './doc-blocks.js'

// A guide's blocks are files at the paths a product would give them; each runs as a fixture at a test path. One
// helper says the two are the same code (test/build/screen-guide.test.ts, test/build/streaming-guide.test.ts).

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..')

const withoutExtension = (path: string) => path.replace(/\.(js|ts|tsx)$/, '')

export const readProjectFile = (path: string) => readFile(join(ROOT, path), 'utf8')

/** The code with its first line (which names the file) dropped and each relative import, static or dynamic, replaced by the module it names. */
export function normalized (code: string, path: string, modules: (resolved: string) => string = (resolved) => resolved): string {
  const resolve = (specifier: string) => `<${modules(withoutExtension(posix.join(posix.dirname(path), specifier)))}>`
  return code.split('\n').slice(1).join('\n').trim()
    .replace(/from '(\.[^']*)'/g, (_, specifier: string) => `from ${resolve(specifier)}`)
    .replace(/import\('(\.[^']*)'\)/g, (_, specifier: string) => `import(${resolve(specifier)})`)
}

/** A document's file blocks by the path their first line names. */
export async function fileBlocks (document: string): Promise<Map<string, string>> {
  const blocks = codeBlocks(document, await readProjectFile(document))
  return new Map(blocks.flatMap((block) => block.path === undefined ? [] : [[block.path, block.code]]))
}

/**
 * The resolver for a document's code: a shown path resolves to its fixture's, or to a stand-in's (a module the
 * fixtures replace, such as a helper whose app lists the example); any other path is already where the code lives.
 */
export function asShownIn (fixtures: Record<string, string>, standIns: Record<string, string> = {}): (resolved: string) => string {
  const fixtureOf: Record<string, string> = {
    ...Object.fromEntries(Object.entries(fixtures).map(([shown, fixture]) => [withoutExtension(shown), withoutExtension(fixture)])),
    ...standIns
  }
  return (resolved) => fixtureOf[resolved] ?? resolved
}

/**
 * Asserts that the document shows each file of `fixtures` (shown path to fixture path) and that each block and its
 * fixture are the same code, each import naming the same module once resolved from where its file lives.
 */
export async function assertBlocksAreFixtures (t: Test, document: string, fixtures: Record<string, string>, standIns: Record<string, string> = {}): Promise<void> {
  const blocks = await fileBlocks(document)
  t.same([...blocks.keys()].filter((path) => path in fixtures).sort(), Object.keys(fixtures).sort(), `${document} shows each file`)
  const asShown = asShownIn(fixtures, standIns)
  for (const [shown, fixture] of Object.entries(fixtures)) {
    t.equal(normalized(blocks.get(shown) ?? '', shown, asShown), normalized(await readProjectFile(fixture), fixture), `${shown} is ${fixture}`)
  }
}
