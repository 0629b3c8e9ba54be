import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import type { FormState } from '../../../shared/form-state.js'
import type { RequestInfo } from '../../../shared/page-data.js'
import type { LoaderTable } from '../../screens/loader.js'
import { readRequestInfo } from '../../http/request-info.js'

export interface RenderPageOptions {
  status?: number
  form?: FormState
  requestInfo?: RequestInfo
}

declare module 'fastify' {
  interface FastifyReply {
    // A loader that throws is answered by the error handler; one that sends the reply itself (a redirect) has the
    // last word.
    renderPage (id: string, options?: RenderPageOptions): Promise<void>
  }
}

export const pageLoading = fp<{ loaders: LoaderTable }>(async (app, { loaders }) => {
  app.decorateReply('renderPage', async function (this: FastifyReply, id: string, options: RenderPageOptions = {}) {
    const reply = this
    const { request } = reply
    const requestInfo = options.requestInfo ?? readRequestInfo(request)
    const load = loaders.get(id)
    const data = load ? await load({ request, reply, url: new URL(request.url, 'http://localhost'), requestInfo }) : null
    if (reply.sent) return
    reply.sendPage({ id, status: options.status ?? 200, data, ...(options.form ? { form: options.form } : {}) }, requestInfo)
  })
}, { name: 'page-loading', fastify: '5.x', dependencies: ['page-rendering'] })
