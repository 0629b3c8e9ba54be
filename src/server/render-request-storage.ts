/**
 * What React's renderer gets in the built server in place of node:async_hooks:
 * a store for the synchronous call to run() only, as React's edge build
 * behaves without AsyncLocalStorage. On Node 20 a real one turns async hooks
 * on for every later request (docs/decisions/server-renderer.md).
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
