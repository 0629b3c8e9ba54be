import { posix } from 'node:path'

/** The ```ts and ```tsx blocks of a Markdown text whose first line is a comment naming a file, by that path. */
export function codeBlocks (markdown: string): Map<string, string> {
  return new Map([...markdown.matchAll(/```tsx?\n(\/\/ (\S+)\n[\s\S]*?)```/g)].map(([, code, path]) => [path!, code!]))
}

export const withoutExtension = (path: string) => path.replace(/\.(js|ts|tsx)$/, '')

/**
 * A doc's block and the fixture that runs it must be the same code: their
 * first lines (which name the file) dropped and each relative import, static
 * or dynamic, replaced by the module it names once resolved from `path`.
 * `modules` maps a resolved module (without extension) to the one it stands for.
 */
export function normalized (code: string, path: string, modules: (resolved: string) => string = (resolved) => resolved): string {
  const resolve = (specifier: string) => `<${modules(withoutExtension(posix.join(posix.dirname(path), specifier)))}>`
  return code.split('\n').slice(1).join('\n').trim()
    .replace(/from '(\.[^']*)'/g, (_, specifier: string) => `from ${resolve(specifier)}`)
    .replace(/import\('(\.[^']*)'\)/g, (_, specifier: string) => `import(${resolve(specifier)})`)
}
