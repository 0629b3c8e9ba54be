import { builtinModules, isBuiltin } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { root } from './paths.mjs'

const SERVER_DIR = join(root, 'src', 'server') + sep
const IN_PACKAGE = /[\\/]node_modules[\\/]/
/** Bare or with node: (esbuild's filters are Go regular expressions). */
const BUILTIN = new RegExp(`^(node:.*|(${builtinModules.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})(/.*)?)$`)
const packageOf = (file) => /.*[\\/]node_modules[\\/]((@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1]?.replace(/\\/g, '/') ?? relative(root, file)
const ASKED = Symbol('asked by server-code-stays-on-server')
const SERVER_HALF = 'screen-server-half'
const SERVER_MODULE = /\.server(\.[cm]?[jt]sx?)?$/

/** Two rules, no list of packages to keep up to date: ours may not import src/server/ or a `.server` module (but the
 * registry's import() of a server half), and nothing may import Node's modules unless a "browser" field stands in. */
export const serverCodeStaysOnServer = {
  name: 'server-code-stays-on-server',
  setup (build) {
    const refuse = (text) => ({ errors: [{ text }] })
    build.onResolve({ filter: SERVER_MODULE }, ({ path, importer, kind }) => {
      if (IN_PACKAGE.test(importer)) return undefined
      // One shared empty module, never loaded: no script names a file the build did not write.
      if (kind === 'dynamic-import') return { path: 'server-half', namespace: SERVER_HALF }
      return refuse(`"${path}" is server-only and cannot be imported from browser code (${relative(root, importer)})`)
    })
    build.onLoad({ filter: /.*/, namespace: SERVER_HALF }, () => ({ contents: 'export {}', loader: 'js' }))
    build.onResolve({ filter: /^(\.|\/|[A-Za-z]:)/ }, ({ path, importer, kind }) => {
      if (kind === 'entry-point' || IN_PACKAGE.test(importer) || !(path.startsWith('.') || isAbsolute(path))) return undefined
      if (!resolve(dirname(importer), path).startsWith(SERVER_DIR)) return undefined
      return refuse(`"${path}" is server-only and cannot be imported from browser code (${relative(root, importer)})`)
    })
    build.onResolve({ filter: BUILTIN }, async ({ path, importer, kind, resolveDir, pluginData }) => {
      if (pluginData === ASKED || !isBuiltin(path)) return undefined
      if (!IN_PACKAGE.test(importer)) return refuse(`"${path}" is server-only and cannot be imported from browser code (${relative(root, importer)})`)
      const resolved = await build.resolve(path, { importer, kind, resolveDir, pluginData: ASKED })
      // Left to esbuild, which resolves it as it just did: a `false` in the field comes back as a bare path in no
      // namespace, which a plugin may not hand back, yet is the usual way a package says "nothing here in a browser".
      if (resolved.errors.length === 0) return undefined
      return refuse(`"${packageOf(importer)}" is server-only: it imports Node's "${path}" (${relative(root, importer)}), which no browser has`)
    })
  }
}
