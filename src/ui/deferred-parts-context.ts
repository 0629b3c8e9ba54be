import { createContext } from 'react'

// Apart from Await (await.tsx), so that Await is in the chunks of the pages that use it, not in the shell.

/** The page's deferred parts by key: the loader's promises on the server, the store's in the browser. */
export const DeferredPartsContext = createContext<ReadonlyMap<string, PromiseLike<unknown>>>(new Map())

/** The data a page component gets: the awaited part, with its deferred parts back in place as promises. */
export function withDeferred (data: unknown, parts: ReadonlyMap<string, PromiseLike<unknown>>): unknown {
  if (parts.size === 0 || typeof data !== 'object' || data === null) return data
  return { ...data, ...Object.fromEntries(parts) }
}
