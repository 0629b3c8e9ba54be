import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RequestInfo } from '../../shared/page-data.js'
import type { PageDefinition } from '../../ui/page-table.js'

/**
 * What a page's loader gets: the request (cookies, headers, and the app's
 * services as its decorators: `request.server.honeypot`), the reply (to set
 * a cookie or redirect), the URL and what the document knows of the visitor.
 */
export interface LoaderContext {
  request: FastifyRequest
  reply: FastifyReply
  url: URL
  requestInfo: RequestInfo
}

/** Produces a page's data on the server, on every visit. What it returns must survive JSON: it hydrates the browser. */
export type PageLoader<Data = unknown> = (context: LoaderContext) => Data | Promise<Data>

export type LoaderTable = ReadonlyMap<string, PageLoader>

/** Pairs a loader with its page, so the two agree on the data type. */
export function defineLoader<Data> (page: PageDefinition<Data>, load: PageLoader<Data>): [string, PageLoader] {
  return [page.id, load]
}

/**
 * Every page's loader, by page id. Server-only: this directory never reaches
 * the browser bundle (build.mjs refuses it), so a loader may import a
 * database driver or read a secret. The home page renders from request info alone.
 */
export const LOADERS: LoaderTable = new Map<string, PageLoader>([])
