import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

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
