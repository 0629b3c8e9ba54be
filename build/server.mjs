// The server: our sources and the packages they run bundled into ES modules, but for the few that load files
// of their own at run time (docs/decisions/one-file-server.md, start-up.md).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import { root, serverOut } from './paths.mjs'

const { dependencies, devDependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/**
 * Left in node_modules, imported as Node resolves them:
 * - pino, which starts a transport (logger.transport, LOG_PRETTY) in a worker
 *   thread from a file beside its own code, a file no bundle has;
 * - OpenTelemetry's SDK, imported only when tracing is configured
 *   (src/server/observability/tracing.ts): bundled, its import would be parsed at every
 *   start. Its API stays in: prom-client requires that no-op facade when
 *   metrics are on, and the SDK's own copy (the same version) shares its global state;
 * - development tools (devDependencies), never in a production server.
 * Every other package is bundled: resolving and loading some five hundred
 * package files took start-up from 150 to 450 ms (start-up.md).
 */
const EXTERNAL = [
  'pino',
  ...Object.keys(dependencies).filter((name) => (name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api') || name === '@fastify/otel'),
  ...Object.keys(devDependencies)
].flatMap((name) => [name, `${name}/*`])

/**
 * A bundled CommonJS package still calls require() (for Node's modules and
 * the packages left outside) and may read __dirname: an ES module has neither,
 * so each output file defines them for itself.
 */
const COMMONJS_GLOBALS = [
  "import { createRequire as __createRequire } from 'node:module'",
  "import { dirname as __pathDirname } from 'node:path'",
  "import { fileURLToPath as __fileURLToPath } from 'node:url'",
  'const require = __createRequire(import.meta.url)',
  'const __filename = __fileURLToPath(import.meta.url)',
  'const __dirname = __pathDirname(__filename)'
].join(';')

/**
 * `mode` is what the code sees as process.env.NODE_ENV, packages included:
 * React's production or development build, and a production server holds
 * none of the development tools (src/server/dev/).
 * @param {'production' | 'development'} mode
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
  // Whitespace only, so names stay as written: Node measures every line of a module whose map it loads, and the
  // bundle's seventy thousand lines cost start-up about 25 ms (start-up.md).
  minifyWhitespace: true,
  sourcemap: 'linked',
  // Stack traces need the mappings only; the sources' text tripled the map that start-up reads (start-up.md).
  sourcesContent: false,
  jsx: 'automatic',
  metafile: true,
  logLevel: 'warning'
})

/** The server alone, in `mode`; tests build the development one beside the production one. */
export const buildServer = ({ mode, outdir = serverOut }) => esbuild.build({ ...serverOptions(mode), outdir })
