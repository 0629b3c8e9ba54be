import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import type { PageData, PageState, RequestInfo } from '../../../shared/page-data.js'
import { hintCheckScriptFor } from '../../../shared/hint-check-script.js'
import { SILENCE_SKIPPED_TRANSITIONS } from '../../../shared/skipped-transitions.js'
import { DocumentRoot } from '../../../ui/document-root.js'
import { SYSTEM_SCREENS } from '../../../ui/define-screen.js'
import { serializeForScript } from '../../../shared/serialize.js'
import { speculationRules } from '../../../shared/speculation-rules.js'
import { pageAssets, type AssetManifest } from '../../rendering/assets.js'
import { publicEnv, type Env } from '../../env.js'
import { STATUSES } from '../../errors.js'
import { fillTemplate, passThrough, RenderCache, renderCacheKey, type Capture, type RenderCacheOptions, type Template } from '../../rendering/render-cache.js'
import { renderToHtml, sendDocument, type Delivery, type RenderOptions } from '../../rendering/render.js'
import { deferredPartsOf, dropDeferredParts, type DeferredParts } from '../../rendering/deferred-parts.js'
import { checkPageData } from '../../rendering/page-data-json.js'
import { negotiateEncoding } from '../../rendering/document-encoding.js'
import { REUSED_ENCODINGS } from '../external/compression.js'
import { sealDocument, sealedBody, type SealedDocument } from '../../rendering/sealed-document.js'
import { createNonce } from '../../security/nonce.js'
import { declareRequestAbort, requestSignal } from '../../http/request-abort.js'
import { runsScripts } from '../../http/script-evidence.js'
import { readRequestInfo } from '../../http/request-info.js'
import { addVary, varyByVisitor } from '../../http/negotiation.js'
import { advertiseClientHints } from '../../http/client-hints.js'
import { refuseSpeculation, speculationOf } from '../../http/speculation.js'
import type { DevTools } from '../../dev/dev-tools.js'
import type { LoadedScreens } from '../../screens/load-screens.js'

declare module 'fastify' {
  interface FastifyInstance {
    renderCache: RenderCache
  }
  interface FastifyReply {
    // `cause`: what an error page stands in for (shown in development only).
    sendPage (page: PageState, requestInfo?: RequestInfo, cause?: unknown): void
  }
}

export const SERVER_ERROR_PAGE: PageState = { id: SYSTEM_SCREENS.serverError, status: 500, data: { title: STATUSES[500].title } }

const NO_STORE = /\bno-store\b/i
const LAST_RESORT = '<!DOCTYPE html><html lang="en" class="light"><head><meta charset="utf-8"><title>Error | Agent Stack</title></head><body><h1>Something went wrong</h1></body></html>'

export interface PageRenderingOptions {
  env: Env
  assets: AssetManifest
  screens: LoadedScreens
  cache?: RenderCacheOptions
  devTools?: DevTools | undefined
}

export const pageRendering = fp<PageRenderingOptions>(async (app, { env, assets, screens, cache: cacheOptions, devTools }) => {
  declareRequestAbort(app)
  const publicConfig = publicEnv(env)
  const assetsOf = pageAssets(assets)
  const cache = new RenderCache(cacheOptions)
  // Outside production a cache hit is also rendered afresh, so a component that is not pure shows at once.
  const verifyHits = env.NODE_ENV !== 'production'
  // And its data walked for what JSON would change without failing: production pays only for JSON's own failures.
  const checkData = env.NODE_ENV !== 'production'
  const uncacheable = new Set(screens.screens.filter(({ view }) => view.cache === false).map(({ id }) => id))
  // A deferred part is not in the cache key: only a screen that says its parts follow from the rest may be served cached.
  const deferredCacheable = new Set(screens.screens.filter(({ view }) => view.cacheDeferred === true).map(({ id }) => id))
  const noParts: ReadonlyMap<string, PromiseLike<unknown>> = new Map()
  // The document's first script: what must run before the page's module, then before it paints.
  const firstScript = (requestInfo: RequestInfo) => SILENCE_SKIPPED_TRANSITIONS + hintCheckScriptFor(requestInfo)
  // Where the screens' forms post: links there are never prerendered or prefetched.
  const rules = serializeForScript(speculationRules(screens.forms.map((form) => form.path)))
  const element = (data: PageData, nonce: string, parts = noParts) =>
    <DocumentRoot data={data} nonce={nonce} screens={screens.registry} hintScript={firstScript} speculationRules={rules} deferredParts={parts} />
  const devScript = (failure: Parameters<DevTools['documentScript']>[0]) => devTools?.documentScript(failure) ?? ''
  const documentScript = devScript(null)

  /** `speculative`: the page may never be shown, so it leaves the toast for the page that will be. */
  function pageData (reply: FastifyReply, page: PageState, requestInfo: RequestInfo | undefined, speculative: boolean): PageData {
    const { request } = reply
    return {
      env: publicConfig,
      assets: assetsOf(page.id, page.deferred !== undefined),
      requestInfo: requestInfo ?? readRequestInfo(request),
      honeyProps: app.honeypot.getInputProps(page.id),
      toast: speculative ? null : app.flashToasts.take(request, reply),
      page
    }
  }

  const sealed = new WeakMap<Template, SealedDocument>()
  function sealedFor (template: Template, honeypotToken: string): SealedDocument {
    let document = sealed.get(template)
    if (document?.honeypotToken !== honeypotToken) sealed.set(template, document = sealDocument(template, honeypotToken))
    return document
  }

  function sendCached (reply: FastifyReply, data: PageData, template: Template) {
    const honeypotToken = data.honeyProps.encryptedValidFrom
    const document = sealedFor(template, honeypotToken)
    // Compressed once for all its hits within the second: the smallest encoding the client takes.
    const encoding = negotiateEncoding(reply.request, REUSED_ENCODINGS)
    addVary(reply, 'Accept-Encoding')
    if (encoding) reply.header('Content-Encoding', encoding)
    reply.allowScriptsByHash(document.scriptHashes).status(data.page.status).header('Content-Type', 'text/html; charset=utf-8').send(sealedBody(document, encoding))
    // A document with deferred parts rendered again would wait for parts that only its first request had.
    if (verifyHits && !data.page.deferred) {
      const fillings = { nonce: createNonce(), honeypotToken }
      const html = fillTemplate(template, fillings)
      renderToHtml(element(data, fillings.nonce), data, fillings.nonce, documentScript).then((fresh) => {
        const { id } = data.page
        if (!html.equals(Buffer.from(fresh))) reply.log.warn({ page: id }, `the page "${id}" rendered differently from its cached document: its component reads something besides its data (the clock, a random number); move that into its loader or mark the page cache: false`)
      }, () => {})
    }
  }

  function render (reply: FastifyReply, data: PageData, nonce: string, script: string, capture: Capture, deferred: DeferredParts | null) {
    const { request } = reply
    const delivery: Delivery = data.requestInfo.isBot ? 'whole' : runsScripts(request) ? 'streamed' : 'held'
    const signal = () => requestSignal(reply)
    const encoding = negotiateEncoding(request)
    const attempt = (state: PageData, script: string, onShellFailed: RenderOptions['onShellFailed']) => sendDocument(request, reply, element(state, nonce, state === data ? deferred?.parts : undefined), state, {
      status: state.page.status,
      delivery,
      timeLimitMs: env.STREAM_TIME_LIMIT_MS,
      nonce,
      script,
      capture: state === data ? capture : passThrough(),
      deferred: state === data ? deferred : null,
      signal,
      encoding,
      onShellFailed
    })
    attempt(data, script, (error, componentStack) => {
      reply.documentFailed()
      request.log.error({ err: error }, 'the document shell failed to render')
      // With the toast, as when a loader throws: its cookie is already cleared, and what it says (a form's success) holds.
      attempt({ ...data, page: SERVER_ERROR_PAGE, assets: assetsOf(SERVER_ERROR_PAGE.id, false) }, devScript({ error, componentStack }), (again) => {
        request.log.error({ err: again }, 'the error document failed to render')
        reply.status(500).header('Content-Type', 'text/html; charset=utf-8').send(LAST_RESORT)
      })
    })
  }

  app.decorate('renderCache', cache)
  app.decorateReply('sendPage', function (this: FastifyReply, page: PageState, requestInfo?: RequestInfo, cause?: unknown) {
    const reply = this
    if (checkData) checkPageData(page)
    const speculation = speculationOf(reply.request)
    // A toast shows once: a speculation refused with 503 is asked again on the click
    // (https://github.com/WICG/nav-speculation/issues/138); an error page goes without it, as non-2xx is dropped anyway.
    // One its loader set was held back (docs/navigation.md): that answer is refused whatever it is. Both are refused
    // before anything renders, and the loader's deferred work is stopped: nobody will read it.
    if (speculation !== 'none' && (app.flashToasts.heldBack(reply) || (page.status < 400 && app.flashToasts.waiting(reply.request)))) {
      dropDeferredParts(reply, 'the speculation was refused')
      refuseSpeculation(reply).send()
      return
    }
    const data = pageData(reply, page, requestInfo, speculation !== 'none')
    varyByVisitor(reply)
    advertiseClientHints(reply)
    const honeypotToken = data.honeyProps.encryptedValidFrom
    // A document showing a failure's details (development) is rendered for that failure alone.
    const script = cause === undefined ? documentScript : devScript({ error: cause })
    const deferred = page.deferred ? deferredPartsOf(reply) : null
    // A loader that said no-store (a page for one signed-in visitor) asked that no copy be kept: ours neither.
    const asked = reply.getHeader('cache-control')
    const kept = asked === undefined || page.status >= 400 || !NO_STORE.test(String(asked))
    const cacheable = kept && !uncacheable.has(page.id) && (deferred === null || deferredCacheable.has(page.id))
    const key = script === documentScript ? renderCacheKey(data, honeypotToken, cacheable) : null
    // A speculation may never be shown: it reads the cache but never counts as a sighting, so never changes what is kept.
    const visitor = speculation === 'none'
    const template = key === null ? undefined : visitor ? cache.get(key) : cache.peek(key)
    reply.timeDocument(page.id, template ? 'hit' : key === null || !visitor ? 'bypass' : 'miss')
    if (template) {
      if (deferred) dropDeferredParts(reply, 'the document was served from the render cache')
      return sendCached(reply, data, template)
    }
    // Drawn for a document rendered now only: a kept one allows its scripts by hash.
    const nonce = reply.cspNonce.script
    const capture = key !== null && visitor && cache.admits(key) ? cache.capture(key, { nonce, honeypotToken }) : passThrough()
    render(reply, data, nonce, script, capture, deferred)
  })
}, { name: 'page-rendering', fastify: '5.x', dependencies: ['security', 'honeypot', 'theme-cookie', 'flash-toasts', 'document-timing'] })
