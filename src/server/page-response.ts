import type { FastifyReply, FastifyRequest } from 'fastify'
import { isbot } from 'isbot'
import type { PageData, PageState, RequestInfo } from '../shared/page-data.js'
import { readHints } from './client-hints.js'
import { takeFlashToast } from './flash-toast.js'
import { renderDocument } from './render.js'
import { readTheme } from './theme-cookie.js'

/** What a page's HTML depends on besides its URL: no shared cache may serve it to someone else. */
export const PAGE_VARY = 'Cookie, Sec-CH-Prefers-Color-Scheme'

const RENDER_TIMEOUT_MS = 10_000

export function readRequestInfo (request: FastifyRequest): RequestInfo {
  return {
    hints: readHints(request),
    userPrefs: { theme: readTheme(request) },
    path: request.url
  }
}

/** Renders the document for a page (or the error document when `page` is null) and streams it. */
export function sendPage (request: FastifyRequest, reply: FastifyReply, page: PageState | null, requestInfo = readRequestInfo(request)): Promise<FastifyReply> {
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
  return renderDocument(request, reply, data, {
    status: page?.status ?? 500,
    waitForAll: isbot(request.headers['user-agent']),
    timeoutMs: RENDER_TIMEOUT_MS
  })
}
