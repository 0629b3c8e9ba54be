import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RequestInfo } from '../../shared/page-data.js'
import type { SurvivesJson } from '../../shared/survives-json.js'

/** The router's parameters: a string for each `:name` of the screen's path (`/notes/:id`). */
export type RouteParams = Record<string, string>

export interface LoaderContext<Params extends RouteParams = RouteParams> {
  /** `request.params.id` is a string with `defineLoader<Data, { id: string }>`, else `string | undefined`. */
  request: FastifyRequest<{ Params: Params }>
  reply: FastifyReply
  url: URL
  requestInfo: RequestInfo
  /** Fires when the client goes away, the document's time limit passes, the document is served from the render
   * cache with the parts it was kept with (cacheDeferred), or a speculation is refused: hand it to slow work so it stops. */
  signal: AbortSignal
}

/**
 * Runs once per visit. What it returns must survive JSON (it hydrates the browser), except top-level promises: those
 * parts are streamed as they settle (docs/streaming.md).
 */
export type PageLoader<Data = unknown, Params extends RouteParams = RouteParams> = (context: LoaderContext<Params>) => LoaderResult<Data> | Promise<LoaderResult<Data>>

/** A reply (`return reply.redirect('/sign-in', 303)`) is awaited until its answer is sent; no page is rendered. */
export type LoaderResult<Data> = Data | FastifyReply

export type LoaderTable = ReadonlyMap<string, PageLoader>

/**
 * The type refuses data that would not survive JSON (a Date, a Map, a nested promise: shared/survives-json.ts).
 * `Params` names the path's parameters, which the router gives as strings, never checked against the screen's path.
 */
export function defineLoader<Data extends SurvivesJson<Data>, Params extends RouteParams = RouteParams> (load: PageLoader<Data, Params>): PageLoader<Data, Params> {
  return load
}
