// The built server's process entry: dist/server/main.js (.dev/server/main.js under npm run dev).
import { enableCompileCache } from 'node:module'
import { fileURLToPath } from 'node:url'

// Kept in this build, so the next build removes it (the temporary folder kept every build's entries); an unwritable
// folder only skips it, and NODE_COMPILE_CACHE wins (docs/decisions/start-up.md).
enableCompileCache(fileURLToPath(new URL('./.compile-cache/', import.meta.url)))
// Node maps stack traces to src/ only for modules loaded after this call, so the server is imported below.
process.setSourceMapsEnabled(true)
const { serve } = await import('./serve.js')
// Its own build's browser files and manifest, never another's (docs/decisions/development-loop.md).
await serve({ distDir: fileURLToPath(new URL('../', import.meta.url)) })
