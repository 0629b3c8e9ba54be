import type { PageData, PublicEnv, SentPageData } from '../shared/page-data.js'

declare global {
  interface Window {
    /** The public configuration, set by the document's inline script before any bundle runs. */
    ENV: PublicEnv
    /** The page data the server rendered with but its env (window.ENV), set by the same script. */
    __PAGE_DATA__: SentPageData
  }
}

/** The data the server rendered this document with: hydration must use exactly it. */
export function readPageData (): PageData {
  return { ...window.__PAGE_DATA__, env: window.ENV }
}
