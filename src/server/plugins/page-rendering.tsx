import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import type { Assets, PageData, PageState, RequestInfo } from '../../shared/page-data.js'
import { Document } from '../../ui/document.js'
import { findPage, PageTableContext, SYSTEM_PAGES, type AnyPage } from '../../ui/page-table.js'
import { publicEnv, type Env } from '../env.js'
import { STATUSES } from '../errors.js'
import { fillTemplate, passThrough, RenderCache, renderCacheKey, type Fillings } from '../render-cache.js'
import { renderToHtml, streamDocument, type RenderOptions } from '../render.js'
import { readRequestInfo } from '../request-info.js'
import { addVary } from '../negotiation.js'
import { advertiseClientHints } from '../client-hints.js'
import type { DevTools } from '../dev/dev-tools.js'

declare module 'fastify' {
  interface FastifyInstance {
    renderCache: RenderCache
  }
  interface FastifyReply {
    /**
     * Sends the document for a page: at once from the render cache when the
     * same data was rendered before, else streamed. The reply always ends.
     * `cause`: what an error page stands in for (shown by the development server only).
     */
    sendPage (page: PageState, requestInfo?: RequestInfo, cause?: unknown): void
  }
}

export const PAGE_VARY = 'Cookie, Sec-CH-Prefers-Color-Scheme'

const RENDER_TIMEOUT_MS = 10_000

export const SERVER_ERROR_PAGE: PageState = { id: SYSTEM_PAGES.serverError.id, status: 500, data: { title: STATUSES[500].title } }

/** Written by hand for when even the error document fails to render. */
const LAST_RESORT = '<!DOCTYPE html><html lang="en" class="light"><head><meta charset="utf-8"><title>Error | Agent Stack</title></head><body><h1>Something went wrong</h1></body></html>'

export interface PageRenderingOptions {
  env: Env
  assets: Assets
  pages: readonly AnyPage[]
  devTools?: DevTools | undefined
}

export const pageRendering = fp<PageRenderingOptions>(async (app, { env, assets, pages, devTools }) => {
  const shared = { env: publicEnv(env), assets }
  const cache = new RenderCache()
  // Outside production a cache hit is also rendered afresh, so a component that is not pure shows at once.
  const verifyHits = env.NODE_ENV !== 'production'
  const element = (data: PageData, nonce: string) => (
    <PageTableContext.Provider value={pages}>
      <Document data={data} nonce={nonce} />
    </PageTableContext.Provider>
  )

  app.decorate('renderCache', cache)
  const devScript = (failure: Parameters<DevTools['documentScript']>[0]) => devTools?.documentScript(failure) ?? ''
  const documentScript = devScript(null)

  app.decorateReply('sendPage', function (this: FastifyReply, page: PageState, requestInfo?: RequestInfo, cause?: unknown) {
    const reply = this
    const { request } = reply
    const info = requestInfo ?? readRequestInfo(request)
    const data: PageData = {
      ...shared,
      requestInfo: info,
      honeyProps: app.honeypot.getInputProps(),
      toast: app.flashToasts.take(request, reply),
      page
    }
    // An error page has already said no-store.
    if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'private, no-cache')
    addVary(reply, PAGE_VARY)
    advertiseClientHints(request, reply)
    const nonce = reply.cspNonce.script
    const fillings: Fillings = { nonce, honeypotToken: data.honeyProps.encryptedValidFrom }
    // A document showing a failure's details (development) is rendered for that failure alone.
    const script = cause === undefined ? documentScript : devScript({ error: cause })
    const key = script === documentScript ? renderCacheKey(data, fillings, findPage(page.id, pages)?.cache !== false) : null
    const template = key === null ? undefined : cache.get(key)
    reply.timeDocument(page.id, template ? 'hit' : key === null ? 'bypass' : 'miss')
    if (template) {
      const html = fillTemplate(template, fillings)
      reply.status(page.status).header('Content-Type', 'text/html; charset=utf-8').send(html)
      if (verifyHits) {
        renderToHtml(element(data, nonce), data, nonce, script).then((fresh) => {
          if (fresh !== html) reply.log.warn({ page: page.id }, `the page "${page.id}" rendered differently from its cached document: its component reads something besides its data (the clock, a random number); move that into its loader or mark the page cache: false`)
        }, () => {})
      }
      return
    }
    const render = (state: PageData, script: string, onShellFailed: RenderOptions['onShellFailed']) => streamDocument(request, reply, element(state, nonce), state, {
      status: state.page.status,
      waitForAll: info.isBot,
      timeoutMs: RENDER_TIMEOUT_MS,
      nonce,
      script,
      capture: key === null || state !== data ? passThrough() : cache.capture(key, fillings),
      onShellFailed
    })
    render(data, script, (error, componentStack) => {
      reply.documentFailed()
      request.log.error({ err: error }, 'the document shell failed to render')
      render({ ...data, toast: null, page: SERVER_ERROR_PAGE }, devScript({ error, componentStack }), (again) => {
        request.log.error({ err: again }, 'the error document failed to render')
        reply.status(500).header('Content-Type', 'text/html; charset=utf-8').send(LAST_RESORT)
      })
    })
  })
}, { name: 'page-rendering', fastify: '5.x', dependencies: ['security', 'honeypot', 'theme-cookie', 'flash-toasts', 'document-timing'] })
