// The process entry of the built server: node dist/server/main.js, as npm start, the image and the tests run it.
import { enableCompileCache } from 'node:module'

// Node's compile cache, in the system's temporary folder: a later start skips compiling the server's modules
// (about 30 ms, docs/decisions/start-up.md). Where that folder cannot be written, the server starts without it.
enableCompileCache()
// Stack traces point at src/: Node maps them only for modules loaded after this call, so the server is
// imported below rather than at the top.
process.setSourceMapsEnabled(true)
const { serve } = await import('./serve.js')
await serve()
