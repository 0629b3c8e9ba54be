import { readFileSync } from 'node:fs'
import type { Assets } from '../../shared/page-data.js'

export interface AssetManifest extends Assets {
  pages: Record<string, string[]>
  /** Loaded by a document with deferred parts only. */
  deferred: string[]
}

export function loadAssetManifest (path: string): AssetManifest {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new Error(`No build found at ${path}: run "npm run build" first.`)
  }
  const { entry, styles, preloads, pages = {}, deferred = [] } = JSON.parse(text) as Partial<AssetManifest> & Assets
  return { entry, styles, preloads, pages, deferred }
}

// Preloaded beside the shell's so hydration never waits for a second round trip; whether a page defers is per request.
export function pageAssets (manifest: AssetManifest): (pageId: string, deferred: boolean) => Assets {
  const byPage = new Map<string, { plain: Assets, deferred: Assets }>()
  return (pageId, deferred) => {
    let assets = byPage.get(pageId)
    if (!assets) {
      const own = Object.hasOwn(manifest.pages, pageId) ? manifest.pages[pageId] ?? [] : []
      const withPreloads = (files: string[]) => ({ entry: manifest.entry, styles: manifest.styles, preloads: [...new Set(files)] })
      // The store's chunks may be the page's too (shared/deferred.ts, which Await also imports): each is listed once.
      assets = { plain: withPreloads([...manifest.preloads, ...own]), deferred: withPreloads([...manifest.preloads, ...own, ...manifest.deferred]) }
      byPage.set(pageId, assets)
    }
    return deferred ? assets.deferred : assets.plain
  }
}
