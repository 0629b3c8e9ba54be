import { createContext, useContext, type ComponentType } from 'react'
import { definePage } from './define-page.js'
import { HomePage } from './pages/home.js'
import { NotFoundPage } from './pages/not-found.js'
import { ClientErrorPage } from './pages/client-error.js'
import { ErrorPage } from './pages/error.js'

export interface PageMeta<Data = unknown> {
  /** Shown before the product name; a function when one page shows several things. */
  title?: string | ((page: { status: number, data: Data }) => string)
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

export const HOME = definePage({ id: 'home', path: '/', Component: HomePage })

/** Every screen of the app: a new screen is one file in pages/ and one line here. */
export const PAGES: readonly AnyPage[] = [HOME]

/** Pages the server chooses; their titles come from the error catalogue. */
export const SYSTEM_PAGES = {
  notFound: definePage<{ title: string }>({ id: 'not-found', Component: NotFoundPage, meta: { title: ({ data }) => data.title } }),
  clientError: definePage<{ title: string, message: string }>({ id: 'client-error', Component: ClientErrorPage, meta: { title: ({ data }) => data.title } }),
  serverError: definePage<{ title: string }>({ id: 'server-error', Component: ErrorPage, meta: { title: ({ data }) => data.title } })
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
