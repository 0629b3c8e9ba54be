import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RequestInfo } from '../../shared/page-data.js'
import type { SurvivesJson } from '../../shared/survives-json.js'

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
export type PageLoader<Data = unknown> = (context: LoaderContext) => LoaderResult<Data> | Promise<LoaderResult<Data>>

/**
 * The page's data, or the reply once the loader has answered with it: `return reply.redirect('/sign-in', 303)`.
 * A reply is awaited until its answer is sent, and no page is rendered.
 */
export type LoaderResult<Data> = Data | FastifyReply

export type LoaderTable = ReadonlyMap<string, PageLoader>

/**
 * A screen's loader, `export const loader = defineLoader<Data>(…)` in its .server.ts: the type ties it to its view's
 * data, and refuses data that would not survive JSON (a Date, a Map, a nested promise: shared/survives-json.ts).
 */
export function defineLoader<Data extends SurvivesJson<Data>> (load: PageLoader<Data>): PageLoader<Data> {
  return load
}
