// The fold and terser change what esbuild hashed: without this, new bytes could ship under a name cached for a year.
import { createHash } from 'node:crypto'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { root } from './paths.mjs'

const HASHED = /-[A-Z0-9]{8}\.js$/
const digest = (...parts) => createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 8).toUpperCase()
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A change in any script reached renames a script; its own bytes come first, or a cycle's (the fold) would share a name.
 * @param {import('esbuild').Metafile} metafile
 * @returns {Promise<import('esbuild').Metafile>}
 */
export async function nameByContent (metafile) {
  const scripts = Object.keys(metafile.outputs).filter((output) => HASHED.test(output))
  if (scripts.length === 0) return metafile
  const names = new RegExp(scripts.map((output) => escape(basename(output))).join('|'), 'g')
  const code = new Map(await Promise.all(scripts.map(async (output) => [output, await readFile(join(root, output), 'utf8')])))
  const own = new Map(scripts.map((output) => [output, digest(code.get(output).replace(names, ''))]))
  const reached = (output, found = new Set([output])) => {
    for (const { path } of metafile.outputs[output].imports) {
      if (own.has(path) && !found.has(path)) reached(path, found.add(path))
    }
    return found
  }
  const renamed = new Map(scripts.map((output) => {
    const hash = digest(own.get(output), ...[...reached(output)].map((path) => own.get(path)).sort())
    return [output, output.replace(HASHED, `-${hash}.js`)]
  }))
  const taken = new Map()
  for (const [from, to] of renamed) {
    if (taken.has(to)) throw new Error(`build: ${basename(taken.get(to))} and ${basename(from)} would both ship as ${basename(to)}`)
    taken.set(to, from)
  }
  const newBase = new Map([...renamed].map(([from, to]) => [basename(from), basename(to)]))
  const rename = (text) => text.replace(names, (name) => newBase.get(name))

  for (const [from, to] of renamed) {
    const map = metafile.outputs[`${from}.map`] ? JSON.parse(await readFile(join(root, `${from}.map`), 'utf8')) : null
    await rm(join(root, from))
    await writeFile(join(root, to), rename(code.get(from)))
    if (!map) continue
    await rm(join(root, `${from}.map`))
    await writeFile(join(root, `${to}.map`), JSON.stringify({ ...map, file: basename(to) }))
  }
  const path = (output) => renamed.get(output) ?? (output.endsWith('.js.map') && renamed.has(output.slice(0, -4)) ? `${renamed.get(output.slice(0, -4))}.map` : output)
  const outputs = Object.fromEntries(Object.entries(metafile.outputs).map(([output, info]) => [
    path(output),
    { ...info, imports: info.imports.map((imported) => ({ ...imported, path: path(imported.path) })) }
  ]))
  return { ...metafile, outputs }
}

