import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import { root, serverOut } from './paths.mjs'

const { dependencies, devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/** Which packages stay in node_modules, and why: docs/decisions/one-file-server.md. */
const EXTERNAL = [
  'pino',
  ...Object.keys(dependencies).filter((name) => (name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api') || name === '@fastify/otel'),
  ...Object.keys(devDependencies)
].flatMap((name) => [name, `${name}/*`])

/** Bundled CommonJS still calls require() and may read __dirname, which an ES module lacks. */
const COMMONJS_GLOBALS = [
  "import { createRequire as __createRequire } from 'node:module'",
  "import { dirname as __pathDirname } from 'node:path'",
  "import { fileURLToPath as __fileURLToPath } from 'node:url'",
  'const require = __createRequire(import.meta.url)',
  'const __filename = __fileURLToPath(import.meta.url)',
  'const __dirname = __pathDirname(__filename)'
].join(';')

/**
 * @param {'production' | 'development'} mode process.env.NODE_ENV, for packages too
 * @returns {import('esbuild').BuildOptions & { metafile: true }}
 */
export const serverOptions = (mode) => ({
  absWorkingDir: root,
  entryPoints: { main: 'src/server/main.ts' },
  bundle: true,
  external: EXTERNAL,
  // main.js turns source maps on, then imports the rest: Node maps stack traces only for modules loaded after.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  outdir: serverOut,
  chunkNames: '[name]-[hash]',
  banner: { js: COMMONJS_GLOBALS },
  define: { 'process.env.NODE_ENV': JSON.stringify(mode) },
  // Whitespace only, so names stay as written: Node measures every line of a module whose map it loads (start-up.md).
  minifyWhitespace: true,
  sourcemap: 'linked',
  // Stack traces need the mappings only; the sources' text would slow start-up (start-up.md).
  sourcesContent: false,
  jsx: 'automatic',
  metafile: true,
  logLevel: 'warning'
})

export const buildServer = ({ mode, outdir = serverOut }) => esbuild.build({ ...serverOptions(mode), outdir })
