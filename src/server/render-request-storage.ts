// Stands in for node:async_hooks in the built server: a store for the synchronous call to run() only, as React's
// edge build behaves. On Node 20 a real one turns async hooks on for every later request
// (docs/decisions/server-renderer.md).
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
