import { readdirSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, posix, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the project. */
  doc: string
  /** The line of its opening fence, 1-based. */
  line: number
  lang: string
  code: string
  /** The file a TypeScript block is, named by its first line (`// src/screens/notes.tsx`). */
  path: string | undefined
}

const FENCE = /^```(\S*)\n([\s\S]*?)^```$/gm
const PATH_LINE = /^\/\/ ((?:src|test)\/\S+\.tsx?)\n/

export function codeBlocks (doc: string, markdown: string): CodeBlock[] {
  return [...markdown.matchAll(FENCE)].map((match) => {
    const [, lang = '', code = ''] = match
    return {
      doc,
      line: markdown.slice(0, match.index).split('\n').length,
      lang,
      code,
      path: /^tsx?$/.test(lang) ? PATH_LINE.exec(code)?.[1] : undefined
    }
  })
}

/** README.md and every Markdown file under docs/. */
export function documentation (root: string): string[] {
  const docs: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.md')) docs.push(relative(root, path))
    }
  }
  walk(join(root, 'docs'))
  return ['README.md', ...docs.sort()]
}

export function allCodeBlocks (root: string): CodeBlock[] {
  return documentation(root).flatMap((doc) => codeBlocks(doc, readFileSync(join(root, doc), 'utf8')))
}

/** Where a reader finds a block: `docs/streaming.md:12`. */
export const where = (block: CodeBlock) => `${block.doc}:${block.line}`

/** A Markdown file's TypeScript blocks that name their file, by that path. */
export function fileBlocks (doc: string, markdown: string): Map<string, string> {
  return new Map(codeBlocks(doc, markdown).flatMap((block) => block.path === undefined ? [] : [[block.path, block.code]]))
}

export const withoutExtension = (path: string) => path.replace(/\.(js|ts|tsx)$/, '')

/**
 * A doc's block and the fixture that runs it must be the same code: compare what this returns for each. Their first
 * lines (which name the file) dropped, and each relative import, static or dynamic, replaced by the module it names
 * once resolved from `path`; `modules` maps a resolved module (without extension) to the one it stands for.
 */
export function normalized (code: string, path: string, modules: (resolved: string) => string = (resolved) => resolved): string {
  const resolve = (specifier: string) => `<${modules(withoutExtension(posix.join(posix.dirname(path), specifier)))}>`
  return code.split('\n').slice(1).join('\n').trim()
    .replace(/from '(\.[^']*)'/g, (_, specifier: string) => `from ${resolve(specifier)}`)
    .replace(/import\('(\.[^']*)'\)/g, (_, specifier: string) => `import(${resolve(specifier)})`)
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * How a guide's code resolves: a shown path to its fixture's, or to a stand-in's (a module the fixtures replace, such
 * as a helper whose app lists the example); any other path is already where the code lives.
 */
export function asShownIn (fixtures: Record<string, string>, standIns: Record<string, string> = {}): (resolved: string) => string {
  const fixtureOf: Record<string, string> = {
    ...Object.fromEntries(Object.entries(fixtures).map(([shown, fixture]) => [withoutExtension(shown), withoutExtension(fixture)])),
    ...standIns
  }
  return (resolved) => fixtureOf[resolved] ?? resolved
}

/**
 * A guide's blocks are files at the paths a product would give them, each run as a fixture at a test path
 * (`fixtures`: shown path to fixture path): asserts that the guide shows each and that each is its fixture's code.
 */
export async function assertBlocksAreFixtures (t: Test, doc: string, fixtures: Record<string, string>, standIns: Record<string, string> = {}): Promise<void> {
  const read = (path: string) => readFile(join(ROOT, path), 'utf8')
  const blocks = fileBlocks(doc, await read(doc))
  t.same([...blocks.keys()].filter((path) => path in fixtures).sort(), Object.keys(fixtures).sort(), `${doc} shows each file`)
  const asShown = asShownIn(fixtures, standIns)
  for (const [shown, fixture] of Object.entries(fixtures)) {
    t.equal(normalized(blocks.get(shown) ?? '', shown, asShown), normalized(await read(fixture), fixture), `${shown} is ${fixture}`)
  }
}
