import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { FormState } from '../../../shared/form-state.js'
import type { RequestInfo } from '../../../shared/page-data.js'
import { splitDeferred } from '../../../shared/deferred.js'
import { declareDeferredParts, DeferredParts, setDeferredParts } from '../../rendering/deferred-parts.js'
import type { LoaderTable, RouteParams } from '../../screens/loader.js'
import { clientWentAway, requestSignal } from '../../http/request-abort.js'
import { readRequestInfo } from '../../http/request-info.js'

const CLIENT_CLOSED_REQUEST = 499

export interface RenderPageOptions {
  status?: number
  form?: FormState
  requestInfo?: RequestInfo
}

declare module 'fastify' {
  interface FastifyReply {
    // A loader that throws is answered by the error handler; one that sends the reply (a redirect) has the last word.
    renderPage (id: string, options?: RenderPageOptions): Promise<void>
  }
}

export const pageLoading = fp<{ loaders: LoaderTable }>(async (app, { loaders }) => {
  declareDeferredParts(app)
  app.decorateReply('renderPage', async function (this: FastifyReply, id: string, options: RenderPageOptions = {}) {
    const reply = this
    const { request } = reply
    const requestInfo = options.requestInfo ?? readRequestInfo(request)
    const load = loaders.get(id)
    const signal = requestSignal(reply)
    let loaded: unknown
    try {
      // The router gives each `:name` of the route's path as a string (a form's POST: its action's path).
      loaded = load ? await load({ request: request as FastifyRequest<{ Params: RouteParams }>, reply, url: new URL(request.url, 'http://localhost'), requestInfo, signal }) : null
    } catch (error) {
      if (!clientWentAway(signal)) throw error
      // Its loader stopped because the client left: nobody's error, and nobody to answer (nginx's 499 in the logs).
      request.log.info('the client went away while the page loaded')
      reply.status(CLIENT_CLOSED_REQUEST).send()
      return
    }
    const { awaited, deferred } = splitDeferred(loaded)
    if (deferred.size > 0) setDeferredParts(reply, new DeferredParts(deferred, request.log, signal))
    if (reply.sent) return
    reply.sendPage({
      id,
      status: options.status ?? 200,
      data: awaited,
      ...(deferred.size > 0 ? { deferred: [...deferred.keys()] } : {}),
      ...(options.form ? { form: options.form } : {})
    }, requestInfo)
  })
}, { name: 'page-loading', fastify: '5.x', dependencies: ['page-rendering'] })
