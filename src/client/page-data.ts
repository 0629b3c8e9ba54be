import type { PageData, PublicEnv } from '../shared/page-data.js'

declare global {
  interface Window {
    /** The public configuration, set by the document's inline script before any bundle runs. */
    ENV: PublicEnv
    /** The page data the server rendered with, set by the same script. */
    __PAGE_DATA__: PageData
  }
}

/** The data the server rendered this document with: hydration must use exactly it. */
export function readPageData (): PageData {
  return window.__PAGE_DATA__
}
