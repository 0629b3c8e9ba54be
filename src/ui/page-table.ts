import { createContext, useContext, type ComponentType } from 'react'
import { definePage } from './define-page.js'
import { HomePage } from './pages/home.js'
import { NotFoundPage } from './pages/not-found.js'
import { ClientErrorPage } from './pages/client-error.js'
import { ErrorPage } from './pages/error.js'

/** A page's text, or a function of its status and data when one page shows several things. */
export type PageText<Data> = string | ((page: { status: number, data: Data }) => string)

/** What the document's <head> says about a page; React escapes every value. */
export interface PageMeta<Data = unknown> {
  /** Shown before the product name. */
  title?: PageText<Data>
  /** The summary search engines show (<meta name="description">); the shell's when absent. */
  description?: PageText<Data>
  /** The page's preferred address (<link rel="canonical">): a path of this site, or an absolute http(s) URL. */
  canonical?: PageText<Data>
}

/** A screen as both sides know it; its loader lives on the server (src/server/pages/). */
export interface PageDefinition<Data = unknown> {
  id: string
  path?: string
  Component: ComponentType<{ data: Data }>
  meta?: PageMeta<Data>
  /** false when the component reads more than its data (the clock): rendered on every request. */
  cache?: boolean
}

export type AnyPage = PageDefinition<any>

export { definePage }

export const HOME = definePage({
  id: 'home',
  path: '/',
  Component: HomePage,
  meta: { description: 'Agent Stack: the application shell every screen is rendered in, fast and accessible, with or without JavaScript.', canonical: '/' }
})

/** Every screen of the app: a new screen is one file in pages/ and one line here. */
export const PAGES: readonly AnyPage[] = [HOME]

/** Pages the server chooses; their titles come from the error catalogue. No canonical: an error is not an address to index. */
export const SYSTEM_PAGES = {
  notFound: definePage<{ title: string }>({
    id: 'not-found',
    Component: NotFoundPage,
    meta: { title: ({ data }) => data.title, description: 'There is nothing at this address of Agent Stack.' }
  }),
  clientError: definePage<{ title: string, message: string }>({
    id: 'client-error',
    Component: ClientErrorPage,
    meta: { title: ({ data }) => data.title, description: ({ data }) => data.message }
  }),
  serverError: definePage<{ title: string }>({
    id: 'server-error',
    Component: ErrorPage,
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
