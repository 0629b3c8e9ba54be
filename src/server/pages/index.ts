import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RequestInfo } from '../../shared/page-data.js'
import type { PageDefinition } from '../../ui/page-table.js'

/** A loader gets the request (and the app's services as `request.server` decorators) and the reply. */
export interface LoaderContext {
  request: FastifyRequest
  reply: FastifyReply
  url: URL
  requestInfo: RequestInfo
  /** Fires when the client goes away or the document's time limit passes: hand it to slow work so it stops. */
  signal: AbortSignal
}

/**
 * Runs once per visit; what it returns must survive JSON (it hydrates the browser), except promises at the top level
 * of the object: those parts are deferred, streamed to the browser as they settle (docs/streaming.md).
 */
export type PageLoader<Data = unknown> = (context: LoaderContext) => Data | Promise<Data>

export type LoaderTable = ReadonlyMap<string, PageLoader>

export function defineLoader<Data> (page: PageDefinition<Data>, load: PageLoader<Data>): [string, PageLoader] {
  return [page.id, load]
}

/** Every page's loader by page id; server-only, so one may import a database driver. The home page needs none. */
export const LOADERS: LoaderTable = new Map<string, PageLoader>([])
