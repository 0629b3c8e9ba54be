import { readFileSync } from 'node:fs'
import type { Assets } from '../../shared/page-data.js'

/** What the build (build/) writes: the shell's assets, and each page's own chunks by page id. */
export interface AssetManifest extends Assets {
  pages: Record<string, string[]>
}

/** Reads the manifest that the build writes (build/manifest.mjs); the server cannot run without a build. */
export function loadAssetManifest (path: string): AssetManifest {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new Error(`No build found at ${path}: run "npm run build" first.`)
  }
  const { entry, styles, preloads, pages = {} } = JSON.parse(text) as Partial<AssetManifest> & Assets
  return { entry, styles, preloads, pages }
}

/** A page's chunks are preloaded beside the shell's so hydration never waits for a second round trip. */
export function pageAssets (manifest: AssetManifest): (pageId: string) => Assets {
  const byPage = new Map<string, Assets>()
  return (pageId) => {
    let assets = byPage.get(pageId)
    if (!assets) {
      const own = Object.hasOwn(manifest.pages, pageId) ? manifest.pages[pageId] ?? [] : []
      assets = { entry: manifest.entry, styles: manifest.styles, preloads: [...manifest.preloads, ...own] }
      byPage.set(pageId, assets)
    }
    return assets
  }
}
