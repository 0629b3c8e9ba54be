import type { FastifyInstance } from 'fastify'
import type { AnyPage } from '../../ui/page-table.js'
import type { LoaderTable } from '../pages/index.js'
import { readRequestInfo } from '../request-info.js'

/**
 * One GET (and HEAD) route per page of the table. A page with a loader gets
 * its data from it on every visit; a loader that throws is answered by the
 * error handler (a ClientError as its 4xx, anything else as the 500 page),
 * and one that sends the reply itself (a redirect) has the last word.
 */
export async function pageRoutes (app: FastifyInstance, { pages, loaders }: { pages: readonly AnyPage[], loaders: LoaderTable }) {
  for (const page of pages) {
    if (!page.path) continue
    const { id } = page
    const load = loaders.get(id)
    if (!load) {
      // Nothing to wait for: a synchronous handler, so a page from the render cache costs no promise.
      app.get(page.path, (_request, reply) => { reply.sendPage({ id, status: 200, data: null }) })
      continue
    }
    app.get(page.path, async (request, reply) => {
      const requestInfo = readRequestInfo(request)
      const data = await load({ request, reply, url: new URL(request.url, 'http://localhost'), requestInfo })
      if (!reply.sent) reply.sendPage({ id, status: 200, data }, requestInfo)
      return reply
    })
  }
}
