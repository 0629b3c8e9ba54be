// Whether dist/ must be built again: npm start and a subset of the tests reuse a build that is still fresh.
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { manifestPath, root } from './paths.mjs'

const SOURCES = ['src', 'static', 'build', 'package.json', 'package-lock.json']

async function newestMtime (path) {
  const info = await stat(path).catch(() => null)
  if (!info) return 0
  if (!info.isDirectory()) return info.mtimeMs
  let newest = info.mtimeMs
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    const file = await stat(join(entry.parentPath, entry.name)).catch(() => null)
    if (file && file.mtimeMs > newest) newest = file.mtimeMs
  }
  return newest
}

/** @param {{ project?: string, manifest?: string }} [where] this project's by default; another for the tests */
export async function isStale ({ project = root, manifest = manifestPath } = {}) {
  const built = await stat(manifest).catch(() => null)
  if (!built) return true
  const sources = await Promise.all(SOURCES.map((source) => newestMtime(join(project, source))))
  return Math.max(...sources) > built.mtimeMs
}
