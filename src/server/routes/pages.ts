import type { FastifyInstance } from 'fastify'
import type { PageState } from '../../shared/page-data.js'
import { SYSTEM_PAGES, type PageDefinition } from '../../ui/page-table.js'
import { clientError, wantsJson } from '../error-handler.js'
import { readRequestInfo, sendPage } from '../page-response.js'

/** "GET or HEAD", "DELETE, GET, or HEAD". */
const OR = new Intl.ListFormat('en', { type: 'disjunction' })

/**
 * One GET (and HEAD) route per page of the table; for every other request,
 * 405 at an address some route has, the 404 document (or JSON) elsewhere.
 */
export async function pageRoutes (app: FastifyInstance, { pages }: { pages: readonly PageDefinition[] }) {
  for (const page of pages) {
    if (!page.path) continue
    const { id, load } = page
    if (!load) {
      // Nothing to wait for: a synchronous handler, so a page from the render cache costs no promise.
      app.get(page.path, (request, reply) => { sendPage(request, reply, { id, status: 200, data: null }) })
      continue
    }
    app.get(page.path, async (request, reply) => {
      const requestInfo = readRequestInfo(request)
      let state: PageState | null
      try {
        state = { id, status: 200, data: await load({ url: new URL(request.url, 'http://localhost'), requestInfo }) }
      } catch (error) {
        request.log.error({ err: error, page: id }, 'the page loader failed')
        state = null
      }
      sendPage(request, reply, state, requestInfo)
      return reply
    })
  }

  app.setNotFoundHandler((request, reply) => {
    const allowed = app.allowedMethods(request.url)
    if (allowed.length > 0) {
      // An address we have, asked with a method it does not take: the error handler answers as for any client error.
      reply.header('Allow', allowed.join(', '))
      throw clientError(405, 'METHOD_NOT_ALLOWED', `This address does not accept ${request.method} requests, only ${OR.format(allowed)}.`)
    }
    // A script that asks for JSON gets JSON, as from the error handler; browsers and everyone else get the page.
    if (wantsJson(request)) {
      reply.status(404).send({ statusCode: 404, error: 'Not Found', message: 'There is nothing at this address.' })
      return
    }
    sendPage(request, reply, { id: SYSTEM_PAGES.notFound.id, status: 404, data: null })
  })
}
