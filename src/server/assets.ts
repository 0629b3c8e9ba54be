import { readFileSync } from 'node:fs'
import type { Assets } from '../shared/page-data.js'

/** Reads the manifest that build.mjs writes; the server cannot run without a build. */
export function loadAssetManifest (path: string): Assets {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new Error(`No build found at ${path}: run "npm run build" first.`)
  }
  const { entry, styles, preloads } = JSON.parse(text) as Assets
  return { entry, styles, preloads }
}
