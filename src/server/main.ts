// The process entry of the built server: node dist/server/main.js, as npm start, the image and the tests run it,
// and node .dev/server/main.js, as npm run dev does.
import { enableCompileCache } from 'node:module'
import { fileURLToPath } from 'node:url'

// Node's compile cache, kept inside this build so that the next build removes it: in the system's temporary folder
// every build's hashed files added entries that nothing removed. Where the folder cannot be written (a read-only
// image), the server starts without it; NODE_COMPILE_CACHE, when set, wins (docs/decisions/start-up.md).
enableCompileCache(fileURLToPath(new URL('./.compile-cache/', import.meta.url)))
// Stack traces point at src/: Node maps them only for modules loaded after this call, so the server is
// imported below rather than at the top.
process.setSourceMapsEnabled(true)
const { serve } = await import('./serve.js')
// The build this file belongs to, one level up: a server serves its own build's browser files and manifest,
// never another's (npm run dev's and the production build live apart, docs/decisions/development-loop.md).
await serve({ distDir: fileURLToPath(new URL('../', import.meta.url)) })
