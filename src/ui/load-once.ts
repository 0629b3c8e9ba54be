/** Past it, code a person is waiting on counts as lost: their action then takes its fallback, as after a failed fetch. */
export const CODE_TIME_LIMIT_MS = 10_000

/** A module loaded at most once at a time, for code a page needs only after a person acts: asked for again after a failed
 * fetch, which a browser fetches anew only once it follows whatwg/html#10327 (until then the caller's fallback stands).
 * A fetch that has not arrived within the time limit fails for its callers, or a press would wait on it for good; until
 * it settles, later callers fail at once rather than wait on it again, and if it arrives late it is kept. */
export function loadOnce<Module> (load: () => Promise<Module>, timeLimitMs = CODE_TIME_LIMIT_MS): () => Promise<Module> {
  let loading: Promise<Module> | null = null
  return () => {
    if (loading) return loading
    const fetched = load()
    const current = loading = new Promise<Module>((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error(`The code did not arrive within ${timeLimitMs / 1000} s.`)) }, timeLimitMs)
      const settle = <Value>(then: (value: Value) => void) => (value: Value) => { clearTimeout(timer); then(value) }
      fetched.then(settle(resolve), settle(reject))
    })
    fetched.then(() => { if (loading === current) loading = fetched }, () => { if (loading === current) loading = null })
    return current
  }
}
