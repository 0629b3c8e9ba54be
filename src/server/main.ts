import { readFileSync, writeFileSync } from 'node:fs'
import Module from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Script } from 'node:vm'
import type { CodeCacheState, serve } from './serve.js'

// Starts the server bundle from V8's code cache, since Node 20 keeps no compile cache of its own (see
// docs/decisions/start-up.md). The build writes the cache with `--write-code-cache`; V8 refuses one made by another
// Node or for another bundle, which then compiles as usual, so the image must build with the Node it runs.
type Server = { serve: typeof serve }

const here = dirname(fileURLToPath(import.meta.url))
const bundle = join(here, 'server.js')
const cacheFile = `${bundle}.code-cache`
const writing = process.argv.includes('--write-code-cache')

function readCache (): Buffer | undefined {
  try {
    return readFileSync(cacheFile)
  } catch {
    return undefined
  }
}

function compile (cachedData: Buffer | undefined): { server: Server, script: Script } {
  const script = new Script(Module.wrap(readFileSync(bundle, 'utf8')), { filename: bundle, cachedData })
  const module = { exports: {} as Server }
  script.runInThisContext()(module.exports, Module.createRequire(bundle), module, bundle, here)
  return { server: module.exports, script }
}

if (writing) {
  // After the bundle's evaluation, so the cache holds every function that evaluating it compiled.
  writeFileSync(cacheFile, compile(undefined).script.createCachedData())
} else if (process.sourceMapsEnabled) {
  // Node maps stack traces to the sources (--enable-source-maps, as npm start runs) only for what its own loader compiled.
  const server = Module.createRequire(bundle)(bundle) as Server
  void server.serve({}, { codeCache: 'skipped' })
} else {
  const cachedData = readCache()
  const { server, script } = compile(cachedData)
  const codeCache: CodeCacheState = cachedData === undefined ? 'absent' : script.cachedDataRejected === false ? 'used' : 'rejected'
  void server.serve({}, { codeCache })
}
