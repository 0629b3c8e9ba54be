import type { PageData, PublicEnv, SentPageData } from '../shared/page-data.js'

declare global {
  interface Window {
    ENV: PublicEnv
    __PAGE_DATA__: SentPageData
  }
}

export function readPageData (): PageData {
  return { ...window.__PAGE_DATA__, env: window.ENV }
}
