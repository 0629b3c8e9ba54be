import { readFile } from 'node:fs/promises'
import { dirname, join, posix } from 'node:path'
import type { Test } from 'tap'

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..')

const withoutExtension = (path: string) => path.replace(/\.(js|ts|tsx)$/, '')

/** The code with its first line (which names the file) dropped and each relative import, static or dynamic, replaced by the module it names. */
function normalized (code: string, path: string, modules: (resolved: string) => string): string {
  const resolve = (specifier: string) => `<${modules(withoutExtension(posix.join(posix.dirname(path), specifier)))}>`
  return code.split('\n').slice(1).join('\n').trim()
    .replace(/from '(\.[^']*)'/g, (_, specifier: string) => `from ${resolve(specifier)}`)
    .replace(/import\('(\.[^']*)'\)/g, (_, specifier: string) => `import(${resolve(specifier)})`)
}

/**
 * A document's code blocks are files at the paths a product would give them (their first line names the path); each
 * runs as a fixture at a test path. Asserts that the document shows each file and that each block and its fixture
 * are the same code, each import naming the same module once resolved from where its file lives.
 */
export async function assertBlocksAreFixtures (t: Test, document: string, fixtures: Record<string, string>): Promise<void> {
  const text = await readFile(join(ROOT, document), 'utf8')
  const blocks = new Map([...text.matchAll(/```tsx?\n(\/\/ (\S+)\n[\s\S]*?)```/g)].map(([, code, path]) => [path!, code!]))
  t.same([...blocks.keys()].filter((path) => path in fixtures).sort(), Object.keys(fixtures).sort(), `${document} shows each file`)
  // A shown path resolves to its fixture's; a fixture's path is already where the code lives.
  const fixtureOf = Object.fromEntries(Object.entries(fixtures).map(([shown, fixture]) => [withoutExtension(shown), withoutExtension(fixture)]))
  for (const [shown, fixture] of Object.entries(fixtures)) {
    const code = blocks.get(shown) ?? ''
    const ran = await readFile(join(ROOT, fixture), 'utf8')
    t.equal(
      normalized(code, shown, (resolved) => fixtureOf[resolved] ?? resolved),
      normalized(ran, fixture, (resolved) => resolved),
      `${shown} is ${fixture}`
    )
  }
}
