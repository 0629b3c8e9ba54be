// Where the build reads and writes; every build module and the server agree on them (src/server/app.ts's DIST_DIR).
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')

const buildIn = (dir) => ({ dir, clientOut: join(dir, 'client'), serverOut: join(dir, 'server'), manifestPath: join(dir, 'manifest.json') })

export const { dir: dist, clientOut, serverOut, manifestPath } = buildIn(join(root, 'dist'))
/** npm run dev's, in a folder of its own: neither build ever writes over the other while its server runs. */
export const development = buildIn(join(root, '.dev'))
