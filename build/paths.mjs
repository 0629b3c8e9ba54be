// Where the build reads and writes; every build module and the server agree on them (src/server/app.ts's DIST_DIR).
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const dist = join(root, 'dist')
export const clientOut = join(dist, 'client')
export const serverOut = join(dist, 'server')
/** Written last by a build: its presence and time mark a complete one (staleness.mjs). */
export const manifestPath = join(dist, 'manifest.json')
