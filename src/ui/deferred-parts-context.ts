import { createContext } from 'react'

// Apart from Await (await.tsx), so that Await is in the chunks of the pages that use it, not in the shell.

/** The loader's promises on the server, the store's in the browser. */
export const DeferredPartsContext = createContext<ReadonlyMap<string, PromiseLike<unknown>>>(new Map())

export function withDeferred (data: unknown, parts: ReadonlyMap<string, PromiseLike<unknown>>): unknown {
  if (parts.size === 0 || typeof data !== 'object' || data === null) return data
  return { ...data, ...Object.fromEntries(parts) }
}
