/** A module loaded at most once at a time, for code a page needs only after a person acts: fetched again after a failed fetch. */
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
