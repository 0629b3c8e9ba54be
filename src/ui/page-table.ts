import { createContext, useContext, type ComponentType } from 'react'
import { HomePage } from './pages/home.js'
import { NotFoundPage } from './pages/not-found.js'
import { ClientErrorPage } from './pages/client-error.js'
import { ErrorPage } from './pages/error.js'

export interface PageMeta<Data = unknown> {
  /**
   * Shown before the product name in the title; the product name alone when
   * absent. A function when one page shows several things (a status, a record).
   */
  title?: string | ((page: { status: number, data: Data }) => string)
}

/**
 * A screen as both sides know it. Its loader, if it has one, lives on the
 * server (src/server/pages/), so nothing it imports reaches the browser.
 */
export interface PageDefinition<Data = unknown> {
  id: string
  /** A Fastify route path; absent for pages only the server chooses (404, 4xx, 500). */
  path?: string
  Component: ComponentType<{ data: Data }>
  meta?: PageMeta<Data>
  /**
   * false when the component reads anything besides its data (the clock, a
   * random number): the server then renders it on every request instead of
   * keeping the document (src/server/document-cache.ts).
   */
  cache?: boolean
}

/** A page of any data type: components take their own data, so the table can only say "some". */
export type AnyPage = PageDefinition<any>

/** Keeps a page's meta and component agreeing on its data type, which the server's loader shares. */
export function definePage<Data> (page: PageDefinition<Data>): PageDefinition<Data> {
  return page
}

export const HOME = definePage({ id: 'home', path: '/', Component: HomePage })

/** Every screen of the app: a new screen is one file in pages/ and one line here. */
export const PAGES: readonly AnyPage[] = [HOME]

/** Pages the server renders on its own accord; their titles come from the error catalogue. */
export const SYSTEM_PAGES = {
  notFound: definePage<{ title: string }>({ id: 'not-found', Component: NotFoundPage, meta: { title: ({ data }) => data.title } }),
  clientError: definePage<{ title: string, message: string }>({ id: 'client-error', Component: ClientErrorPage, meta: { title: ({ data }) => data.title } }),
  serverError: definePage<{ title: string }>({ id: 'server-error', Component: ErrorPage, meta: { title: ({ data }) => data.title } })
}

const SYSTEM = Object.values(SYSTEM_PAGES) as AnyPage[]

/**
 * The page table the tree renders from: PAGES in the browser and in
 * production; the server provides its own when an app is built with more
 * pages (tests), without production components passing it along.
 */
export const PageTableContext = createContext<readonly AnyPage[]>(PAGES)

export function findPage (id: string, pages: readonly AnyPage[] = PAGES): AnyPage | undefined {
  return pages.find((page) => page.id === id) ?? SYSTEM.find((page) => page.id === id)
}

export function usePage (id: string): AnyPage | undefined {
  return findPage(id, useContext(PageTableContext))
}
