/**
 * What React's server renderer gets in the built server in place of
 * node:async_hooks (build.mjs, reactRendererWithoutAsyncHooks).
 *
 * react-dom/server's Node build keeps the request being rendered in an
 * AsyncLocalStorage and enters it with run() for each slice of work. On
 * Node 20 the first run() turns async hooks on for the rest of the process,
 * so every later promise, tick and socket pays an init hook: about a tenth
 * of the CPU the health check and the theme switch need, for requests that
 * never render anything.
 *
 * React reads the store only to find its request from outside its own work
 * (a preload() or preinit() called after an await); inside a slice of work
 * it holds the request directly. This storage keeps a store for the
 * synchronous call to run() only, which is how React's edge build behaves
 * in a runtime without AsyncLocalStorage. The shell renders from data
 * loaded before rendering, so it never calls those from an async
 * continuation.
 */
export class AsyncLocalStorage<Store> {
  #store: Store | undefined

  getStore (): Store | undefined {
    return this.#store
  }

  run<Result, Args extends unknown[]> (store: Store, callback: (...args: Args) => Result, ...args: Args): Result {
    const outer = this.#store
    this.#store = store
    try {
      return callback(...args)
    } finally {
      this.#store = outer
    }
  }
}
