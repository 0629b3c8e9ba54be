/** A module loaded at most once at a time, for code a page needs only after a person acts: asked for again after a failed
 * fetch, which a browser fetches anew only once it follows whatwg/html#10327 (until then the caller's fallback stands). */
export function loadOnce<Module> (load: () => Promise<Module>): () => Promise<Module> {
  let loading: Promise<Module> | null = null
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null
      throw error
    })
    return loading
  }
}
