import { createContext, use, useContext, type ComponentType } from 'react'
import { definePage } from './define-page.js'

export type PageText<Data> = string | ((page: { status: number, data: Data }) => string)

/** What the document's <head> says about a page; React escapes every value. */
export interface PageMeta<Data = unknown> {
  title?: PageText<Data>
  /** The shell's description when absent. */
  description?: PageText<Data>
  /** The page's preferred address (<link rel="canonical">): a path of this site, or an absolute http(s) URL. */
  canonical?: PageText<Data>
}

export type PageComponent<Data = unknown> = ComponentType<{ data: Data }>

/**
 * Its loader lives on the server (src/server/pages/); its component, src/ui/pages/<id>.tsx,
 * is a chunk of its own so the first JavaScript does not grow with pages (docs/decisions/first-javascript.md).
 */
export interface PageDefinition<Data = unknown> {
  id: string
  path?: string
  load: () => Promise<PageComponent<Data>>
  meta?: PageMeta<Data>
  /** false when the component reads more than its data (the clock): rendered on every request. */
  cache?: boolean
  /**
   * true when its deferred parts follow from the rest of its data and the request alone: only then may a document
   * with deferred data be served from the render cache (docs/streaming.md).
   */
  cacheDeferred?: boolean
}

export type AnyPage = PageDefinition<any>

export { definePage }

export const HOME = definePage<null>({
  id: 'home',
  path: '/',
  load: () => import('./pages/home.js').then((module) => module.HomePage),
  meta: { description: 'Agent Stack: the application shell every screen is rendered in, fast and accessible, with or without JavaScript.', canonical: '/' }
})

/** Every screen of the app: a new screen is one file in pages/ (named after its id) and one line here. */
export const PAGES: readonly AnyPage[] = [HOME]

/** Pages the server chooses; their titles come from the error catalogue. No canonical: an error is not an address to index. */
export const SYSTEM_PAGES = {
  notFound: definePage<{ title: string }>({
    id: 'not-found',
    load: () => import('./pages/not-found.js').then((module) => module.NotFoundPage),
    meta: { title: ({ data }) => data.title, description: 'There is nothing at this address of Agent Stack.' }
  }),
  clientError: definePage<{ title: string, message: string }>({
    id: 'client-error',
    load: () => import('./pages/client-error.js').then((module) => module.ClientErrorPage),
    meta: { title: ({ data }) => data.title, description: ({ data }) => data.message }
  }),
  serverError: definePage<{ title: string }>({
    id: 'server-error',
    load: () => import('./pages/server-error.js').then((module) => module.ServerErrorPage),
    meta: { title: ({ data }) => data.title, description: 'Agent Stack could not show this page. Please try again in a moment.' }
  })
}

const SYSTEM = Object.values(SYSTEM_PAGES) as AnyPage[]

/** The table the tree renders from: PAGES, or the server's when an app is built with more (tests). */
export const PageTableContext = createContext<readonly AnyPage[]>(PAGES)

export function findPage (id: string, pages: readonly AnyPage[] = PAGES): AnyPage | undefined {
  return pages.find((page) => page.id === id) ?? SYSTEM.find((page) => page.id === id)
}

export function usePage (id: string): AnyPage | undefined {
  return findPage(id, useContext(PageTableContext))
}

/** A promise as React's use() reads it: once settled, its status says so and rendering does not wait. */
type Tracked<Value> = Promise<Value> & { status?: 'fulfilled' | 'rejected', value?: Value, reason?: unknown }

const loading = new WeakMap<AnyPage, Tracked<PageComponent>>()

/**
 * Once; the server loads every page before it listens and the browser its own
 * before hydrating, so rendering finds it ready.
 */
export function loadPage (page: AnyPage): Promise<PageComponent> {
  let promise = loading.get(page)
  if (!promise) {
    const tracked: Tracked<PageComponent> = page.load()
    tracked.then((value) => { tracked.status = 'fulfilled'; tracked.value = value }, (reason: unknown) => { tracked.status = 'rejected'; tracked.reason = reason })
    loading.set(page, promise = tracked)
  }
  return promise
}

export function usePageComponent (page: AnyPage): PageComponent {
  return use(loadPage(page))
}

export function loadAllPages (pages: readonly AnyPage[]): Promise<PageComponent[]> {
  return Promise.all([...pages, ...SYSTEM].map(loadPage))
}
