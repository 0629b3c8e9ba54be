import { builtinModules, isBuiltin } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { root } from './paths.mjs'

const SERVER_DIR = join(root, 'src', 'server') + sep
const IN_PACKAGE = /[\\/]node_modules[\\/]/
/** Every name Node's own modules answer to, bare or with node: (esbuild's filters are Go regular expressions). */
const BUILTIN = new RegExp(`^(node:.*|(${builtinModules.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})(/.*)?)$`)
/** The package a file of node_modules belongs to, for the message. */
const packageOf = (file) => /.*[\\/]node_modules[\\/]((@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1]?.replace(/\\/g, '/') ?? relative(root, file)
/** Set on the resolution this plugin asks esbuild for, so it does not judge its own question again. */
const ASKED = Symbol('asked by server-code-stays-on-server')
const SERVER_HALF = 'screen-server-half'
/** A screen's server half (src/screens/<name>.server.ts), and any module named so. */
const SERVER_MODULE = /\.server(\.[cm]?[jt]sx?)?$/

/**
 * The browser must never receive server code, and the build says so by name.
 * Two rules, with no list of packages to keep up to date:
 * - a module of ours may not import src/server/ (our server code), nor a
 *   `.server` module, except through the screen registry's `import()` of a
 *   screen's server half, which is left out of the bundle (never called there);
 * - nothing may import one of Node's own modules (node:fs, fs, …): a module of
 *   ours doing so is server code in the wrong folder, and a package doing so
 *   (fastify, a database driver) is a server package. A package that brings a
 *   browser stand-in for it (its "browser" field) is let through, as esbuild
 *   resolves it.
 * A browser library that needs nothing of Node's bundles without being named here.
 */
export const serverCodeStaysOnServer = {
  name: 'server-code-stays-on-server',
  setup (build) {
    const refuse = (text) => ({ errors: [{ text }] })
    build.onResolve({ filter: SERVER_MODULE }, ({ path, importer, kind }) => {
      if (IN_PACKAGE.test(importer)) return undefined
      // The registry's import() of a screen's server half: in the browser one shared empty module, never loaded,
      // so no script names a file the build did not write.
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
      if (resolved.errors.length === 0) return { path: resolved.path, namespace: resolved.namespace, external: resolved.external, sideEffects: resolved.sideEffects }
      return refuse(`"${packageOf(importer)}" is server-only: it imports Node's "${path}" (${relative(root, importer)}), which no browser has`)
    })
  }
}
