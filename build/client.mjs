import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import * as esbuild from 'esbuild'
import { minify } from 'terser'
import { serverCodeStaysOnServer } from './boundary.mjs'
import { precompress } from './compress.mjs'
import { nameByContent } from './content-names.mjs'
import { foldIntoEntry } from './fold-into-entry.mjs'
import { manifestFrom } from './manifest.mjs'
import { clientOut, dist, root } from './paths.mjs'
import { screenModules } from './screens.mjs'

// sonner injects its stylesheet at import time, which the CSP refuses: its styles ship in src/ui/styles.css.
export const sonnerWithoutStyleInjection = {
  name: 'sonner-without-style-injection',
  setup (build) {
    build.onLoad({ filter: /sonner[\\/]dist[\\/]index\.mjs$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8')
      const patched = source.replace('function __insertCSS(code) {', 'function __insertCSS(code) { return;')
      if (patched === source) throw new Error('sonner changed: its runtime style injection could not be disabled')
      return { contents: patched, loader: 'js' }
    })
  }
}

/** @type {import('esbuild').BuildOptions & { metafile: true }} */
export const clientOptions = {
  absWorkingDir: root,
  entryPoints: { entry: 'src/client/entry.tsx', styles: 'src/ui/styles.css' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome111', 'firefox111', 'safari16.4'],
  outdir: join(clientOut, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  legalComments: 'none',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [serverCodeStaysOnServer, sonnerWithoutStyleInjection],
  logLevel: 'warning'
}

/** Mangles the names esbuild leaves long once it joins modules; no compress passes: larger gzip (first-javascript.md). */
const TERSER_OPTIONS = { module: true, compress: false, format: { comments: false } }

/**
 * @param {import('esbuild').Metafile} metafile
 * @returns {Promise<import('esbuild').Metafile>} the same, with the scripts' new sizes
 */
async function minifyScripts (metafile) {
  const outputs = { ...metafile.outputs }
  await Promise.all(Object.keys(outputs).filter((output) => output.endsWith('.js')).map(async (output) => {
    const file = join(root, output)
    const name = basename(file)
    const map = outputs[`${output}.map`] ? await readFile(`${file}.map`, 'utf8') : null
    const result = await minify({ [name]: await readFile(file, 'utf8') }, {
      ...TERSER_OPTIONS,
      sourceMap: map === null ? false : { content: map, url: `${name}.map`, includeSources: true }
    })
    await writeFile(file, result.code)
    outputs[output] = { ...outputs[output], bytes: Buffer.byteLength(result.code) }
    if (map === null) return
    await writeFile(`${file}.map`, result.map)
    outputs[`${output}.map`] = { ...outputs[`${output}.map`], bytes: Buffer.byteLength(result.map) }
  }))
  return { ...metafile, outputs }
}

/**
 * @param {import('esbuild').BuildOptions} options
 * @returns {Promise<import('esbuild').Metafile>}
 */
export async function buildBrowserFiles (options) {
  const { metafile } = await esbuild.build({ ...options, metafile: true })
  return nameByContent(await minifyScripts(await foldIntoEntry(metafile, options)))
}

export async function buildClient () {
  await rm(clientOut, { recursive: true, force: true })
  await mkdir(clientOut, { recursive: true })
  await cp(join(root, 'static'), clientOut, { recursive: true })
  const [metafile, screens] = await Promise.all([buildBrowserFiles(clientOptions), screenModules()])
  await writeFile(join(dist, 'client-meta.json'), JSON.stringify(metafile))
  await precompress(clientOut)
  return manifestFrom(metafile, screens, clientOut)
}
