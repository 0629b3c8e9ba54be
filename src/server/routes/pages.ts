import type { FastifyInstance } from 'fastify'
import type { AnyPage } from '../../ui/page-table.js'
import type { LoaderTable } from '../pages/index.js'

/** One GET (and HEAD) route per page of the table; `reply.renderPage` runs its loader. */
export async function pageRoutes (app: FastifyInstance, { pages, loaders }: { pages: readonly AnyPage[], loaders: LoaderTable }) {
  for (const page of pages) {
    if (!page.path) continue
    const { id } = page
    if (!loaders.has(id)) {
      // Nothing to wait for: a synchronous handler, so a page from the render cache costs no promise.
      app.get(page.path, (_request, reply) => { reply.sendPage({ id, status: 200, data: null }) })
      continue
    }
    app.get(page.path, async (_request, reply) => {
      await reply.renderPage(id)
      return reply
    })
  }
}
