// A prerendered page runs its scripts before anyone sees it, and may never be shown
// (https://developer.chrome.com/docs/web-platform/prerender-pages): side effects wait for activation.

declare global {
  interface Document {
    /** Prerendering Revamped; not yet in TypeScript's DOM types. */
    readonly prerendering?: boolean
  }
}

/** Runs `task` now on a page the visitor sees, or once a prerendered page is shown; the returned function cancels it. */
export function whenActivated (task: () => void): () => void {
  if (!document.prerendering) {
    task()
    return () => {}
  }
  const controller = new AbortController()
  document.addEventListener('prerenderingchange', () => task(), { once: true, signal: controller.signal })
  return () => controller.abort()
}
