// The peer of `npm run bench -- --peers`: React Router 7, the same document, theme switch and health check. Its
// packages are installed on first use, never by the project's npm ci; it is built again when its sources are newer.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { root } from './harness.mjs'

export const PEER_DIR = join(root, 'bench', 'peers', 'react-router')
const BUILT = join(PEER_DIR, 'build', 'server', 'index.js')
/** The peer's sources, and the app's stylesheet it links. */
const SOURCES = ['app', 'package.json', 'react-router.config.js', 'vite.config.js'].map((path) => join(PEER_DIR, path)).concat(join(root, 'src', 'ui', 'styles.css'))

async function newestChange (path) {
  const info = await stat(path)
  if (!info.isDirectory()) return info.mtimeMs
  const entries = await readdir(path)
  return Math.max(info.mtimeMs, ...await Promise.all(entries.map((entry) => newestChange(join(path, entry)))))
}

/** `npm` runs with this Node on PATH. */
export async function preparePeer () {
  const run = (args) => execFileSync('npm', args, { cwd: PEER_DIR, stdio: 'inherit' })
  if (!existsSync(join(PEER_DIR, 'node_modules', '.bin', 'react-router'))) {
    console.log('peer: installing React Router 7 into bench/peers/react-router (npm install, once)')
    run(['install', '--no-audit', '--no-fund'])
  }
  const built = existsSync(BUILT) ? (await stat(BUILT)).mtimeMs : 0
  const changed = Math.max(...await Promise.all(SOURCES.map(newestChange)))
  if (changed > built) {
    console.log('peer: building it for production (react-router build)')
    run(['run', 'build', '--silent'])
  }
}

export const PEER_SERVER = { script: join(PEER_DIR, 'server.js'), cwd: PEER_DIR, env: { NODE_ENV: 'production' } }
