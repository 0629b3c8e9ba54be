import { readFileSync } from 'node:fs'
import type { Assets } from '../shared/page-data.js'

export interface AssetManifest extends Assets {
  /** Chunks loaded on demand (the tracker), never part of first paint. */
  lazy: string[]
}

/** Reads the manifest that build.mjs writes; the server cannot run without a build. */
export function loadAssetManifest (path: string): AssetManifest {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new Error(`No build found at ${path}: run "npm run build" first.`)
  }
  const manifest = JSON.parse(text) as AssetManifest
  return { entry: manifest.entry, styles: manifest.styles, preloads: manifest.preloads, lazy: manifest.lazy }
}
