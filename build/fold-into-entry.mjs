import { readFile, rm } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import * as esbuild from 'esbuild'
import { initialOutputs } from './manifest.mjs'
import { root } from './paths.mjs'

/**
 * The shell as one file: what the entry shares with later chunks compresses better in it (first-javascript.md).
 * The entry must not await at its top level: a page chunk it awaited would wait for the entry in turn.
 * @param {import('esbuild').Metafile} metafile the first pass's
 * @param {Pick<import('esbuild').BuildOptions, 'target' | 'sourcemap'>} options the first pass's
 * @returns {Promise<import('esbuild').Metafile>} the metafile of the folded output
 */
export async function foldIntoEntry (metafile, { target, sourcemap }, entryPoint = 'src/client/entry.tsx') {
  const [entry = '', ...folded] = initialOutputs(metafile, entryPoint)
  if (folded.length === 0) return metafile
  const outdir = join(root, dirname(entry))
  const fileOf = (output) => join(root, output)
  const entryFile = fileOf(entry)
  /** [chunk's name, entry's name] of each folded chunk's exports. */
  const exported = new Map(folded.map((chunk, index) => [fileOf(chunk), (metafile.outputs[chunk]?.exports ?? []).map((name) => [name, `f${index}_${name}`])]))
  const exportList = (file, [from, to]) => exported.get(file).map((names) => `${names[from]} as ${names[to]}`).join(', ')
  const fromEntry = `./${relative(outdir, entryFile)}`
  const fold = {
    name: 'fold-into-entry',
    setup (build) {
      build.onResolve({ filter: /^\.\.?\// }, ({ path, importer, namespace }) => {
        const file = namespace === 'file' ? resolve(dirname(importer), path) : null
        if (!file || !exported.has(file)) return { path, external: true }
        const intoEntry = importer === entryFile || exported.has(importer)
        // Named relative to the output, as its source map shows it.
        return intoEntry ? { path: file } : { path: relative(outdir, file), namespace: 'exported-by-entry' }
      })
      build.onLoad({ filter: /.*/, namespace: 'exported-by-entry' }, ({ path }) => ({
        contents: `export { ${exportList(join(outdir, path), [1, 0])} } from ${JSON.stringify(fromEntry)}`,
        resolveDir: outdir,
        loader: 'js'
      }))
      // Before the source map's comment, which must stay last for esbuild to read the first pass's map.
      build.onLoad({ filter: /.*/ }, async ({ path }) => {
        if (path !== entryFile) return undefined
        const code = await readFile(path, 'utf8')
        const reexports = [...exported.keys()].map((chunk) => `export { ${exportList(chunk, [0, 1])} } from ${JSON.stringify(`./${relative(outdir, chunk)}`)};\n`).join('')
        const comment = code.lastIndexOf('//# sourceMappingURL=')
        const end = comment === -1 ? code.length : comment
        return { contents: `${code.slice(0, end)}\n${reexports}${code.slice(end)}`, loader: 'js' }
      })
    }
  }
  const bundle = (outputs, options) => esbuild.build({
    absWorkingDir: root,
    entryPoints: outputs.map(fileOf),
    bundle: true,
    format: 'esm',
    target,
    minify: true,
    legalComments: 'none',
    sourcemap,
    outdir,
    outbase: outdir,
    entryNames: '[dir]/[name]',
    allowOverwrite: true,
    metafile: true,
    plugins: [fold],
    logLevel: 'warning',
    ...options
  })
  const later = Object.keys(metafile.outputs).filter((output) => output.endsWith('.js') && output !== entry && !folded.includes(output))
  const results = await Promise.all([
    // Said here, as the page would just never hydrate, with nothing in the console.
    bundle([entry], { supported: { 'top-level-await': false }, logLevel: 'silent' }).catch((/** @type {esbuild.BuildFailure} */ failure) => {
      if (!failure.errors?.some(({ text }) => text.startsWith('Top-level await'))) throw failure
      throw new Error(`${entryPoint} (or a module it imports) awaits at its top level: chunks loaded later import React from the entry, so a page chunk it awaited would wait for it in turn, and the page never hydrate`)
    }),
    bundle(later)
  ])
  await Promise.all(folded.flatMap((chunk) => [rm(fileOf(chunk)), rm(`${fileOf(chunk)}.map`, { force: true })]))

  const foldedFiles = new Set(folded.flatMap((chunk) => [chunk, `${chunk}.map`]))
  const distinct = (imports) => [...new Map(imports.map((imported) => [`${imported.kind} ${imported.path}`, imported])).values()]
  /** @type {import('esbuild').Metafile['outputs']} */
  const outputs = {}
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (foldedFiles.has(file)) continue
    if (file !== entry) {
      outputs[file] = { ...output, imports: distinct(output.imports.map((imported) => folded.includes(imported.path) ? { ...imported, path: entry } : imported)) }
      continue
    }
    const parts = [output, ...folded.map((chunk) => metafile.outputs[chunk])]
    outputs[file] = {
      ...output,
      imports: distinct(parts.flatMap((part) => part.imports).filter((imported) => !folded.includes(imported.path))),
      inputs: Object.assign({}, ...parts.map((part) => part.inputs)),
      exports: [...exported.values()].flatMap((names) => names.map(([, name]) => name))
    }
  }
  for (const [file, output] of results.flatMap((result) => Object.entries(result.metafile.outputs))) {
    if (outputs[file]) outputs[file].bytes = output.bytes
  }
  return { ...metafile, outputs }
}

