import type { ComponentType } from 'react'
import type { RequestInfo } from '../shared/page-data.js'
import { HomePage } from './pages/home.js'
import { NotFoundPage } from './pages/not-found.js'
import { BadRequestPage, clientErrorTitle } from './pages/bad-request.js'

export interface LoaderContext {
  url: URL
  requestInfo: RequestInfo
}

export interface PageMeta<Data = unknown> {
  /**
   * Shown before the product name in the title; the product name alone when
   * absent. A function when one page shows several things (a status, a record).
   */
  title?: string | ((page: { status: number, data: Data }) => string)
}

export interface PageDefinition<Data = unknown> {
  id: string
  /** A Fastify route path; absent for pages only the server chooses (404, 400). */
  path?: string
  /**
   * Produces the page's data on the server. It is bundled into the browser
   * too (the table is shared), so it must not import server-only modules:
   * reach server resources through the context instead.
   */
  load?: (context: LoaderContext) => Data | Promise<Data>
  Component: ComponentType<{ data: Data }>
  meta?: PageMeta<Data>
}

/** Keeps each page's loader and component agreeing on its data type. */
export function definePage<Data> (page: PageDefinition<Data>): PageDefinition {
  return page as PageDefinition
}

/** Every screen of the app: a new screen is one file in pages/ and one line here. */
export const PAGES: PageDefinition[] = [
  definePage({ id: 'home', path: '/', Component: HomePage })
]

/** Pages the server renders on its own accord, with the status they carry. */
export const SYSTEM_PAGES = {
  notFound: definePage({ id: 'not-found', Component: NotFoundPage, meta: { title: 'Page not found' } }),
  badRequest: definePage<{ message: string }>({ id: 'bad-request', Component: BadRequestPage, meta: { title: ({ status }) => clientErrorTitle(status) } })
}

const BY_ID = new Map([...PAGES, ...Object.values(SYSTEM_PAGES)].map((page) => [page.id, page]))

export function findPage (id: string, pages: readonly PageDefinition[] = PAGES): PageDefinition | undefined {
  return pages.find((page) => page.id === id) ?? BY_ID.get(id)
}
