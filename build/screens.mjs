import { existsSync } from 'node:fs'
import { join, relative } from 'node:path'
import * as esbuild from 'esbuild'
import { root } from './paths.mjs'

export const REGISTRY = 'src/screens/index.ts'
const ASKED = Symbol('asked by screen-modules')

/**
 * Runs the registry with every `import()` answering the file it resolves to: no file-name rule finds a view.
 * @returns {Promise<Record<string, string>>} the view's source path (as esbuild's metafile names it) by screen id
 */
export async function screenModules (registry = REGISTRY) {
  const answerWithPath = {
    name: 'screen-modules',
    setup (build) {
      build.onResolve({ filter: /.*/ }, async ({ path, kind, importer, resolveDir, pluginData }) => {
        if (kind !== 'dynamic-import' || pluginData === ASKED) return undefined
        const resolved = await build.resolve(path, { kind, importer, resolveDir, pluginData: ASKED })
        if (resolved.errors.length > 0) return { errors: resolved.errors }
        return { path: relative(root, resolved.path).split('\\').join('/'), namespace: 'screen-module' }
      })
      build.onLoad({ filter: /.*/, namespace: 'screen-module' }, ({ path }) => ({ contents: `export default ${JSON.stringify(path)}`, loader: 'js' }))
    }
  }
  const { outputFiles } = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [registry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    plugins: [answerWithPath],
    logLevel: 'silent'
  })
  const screens = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`)
  return Object.fromEntries(await Promise.all(Object.entries(screens).map(async ([id, entry]) => {
    const view = (await entry.view()).default
    if (!entry.server) refuseForgottenServerModule(id, view)
    return [id, view]
  })))
}

/** A `.server.ts` that its registry line does not name never runs: the page would silently render with no data. */
function refuseForgottenServerModule (id, view) {
  const server = view.replace(/\.tsx?$/, '.server.ts')
  if (existsSync(join(root, server))) {
    throw new Error(`the screen "${id}": ${server} is beside its view, but its registry line names no server module; add \`server: () => import('./…server.js')\` to it`)
  }
}
