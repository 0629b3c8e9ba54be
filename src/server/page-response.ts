import type { FastifyReply, FastifyRequest } from 'fastify'
import { isbot } from 'isbot'
import type { PageData, PageState, RequestInfo } from '../shared/page-data.js'
import { advertiseClientHints, readHints } from './client-hints.js'
import { takeFlashToast } from './flash-toast.js'
import { renderDocument } from './render.js'
import { readTheme } from './theme-cookie.js'

/** What a page's HTML depends on besides its URL: no shared cache may serve it to someone else. */
export const PAGE_VARY = 'Cookie, Sec-CH-Prefers-Color-Scheme'

const RENDER_TIMEOUT_MS = 10_000

export function readRequestInfo (request: FastifyRequest): RequestInfo {
  const { hints, sources } = readHints(request)
  return {
    hints,
    hintSources: sources,
    userPrefs: { theme: readTheme(request) },
    isBot: isbot(request.headers['user-agent']),
    // A page shown for a POST (a 400 from the theme switch) is not an address to return to.
    path: request.method === 'GET' || request.method === 'HEAD' ? request.url : '/'
  }
}

/**
 * Sends the document for a page (the error document when `page` is null):
 * at once when it is in the render cache, else streamed (renderDocument).
 */
export function sendPage (request: FastifyRequest, reply: FastifyReply, page: PageState | null, requestInfo = readRequestInfo(request)): void {
  const { shell } = request.server
  const data: PageData = {
    requestInfo,
    env: shell.publicEnv,
    honeyProps: shell.honeypot.getInputProps(),
    toast: takeFlashToast(request, reply, { secure: shell.env.NODE_ENV === 'production' }),
    page,
    assets: shell.assets
  }
  reply.header('Cache-Control', 'private, no-cache').header('Vary', PAGE_VARY)
  advertiseClientHints(request, reply)
  renderDocument(request, reply, data, {
    status: page?.status ?? 500,
    waitForAll: requestInfo.isBot,
    timeoutMs: RENDER_TIMEOUT_MS
  })
}
