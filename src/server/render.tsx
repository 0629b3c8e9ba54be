import type { FastifyReply, FastifyRequest } from 'fastify'
import { Transform } from 'node:stream'
import { renderToPipeableStream, renderToString } from 'react-dom/server'
import type { PageData } from '../shared/page-data.js'
import { serializeForScript } from '../shared/serialize.js'
import { Document } from '../ui/document.js'
import type { Shell } from './app.js'
import { fillTemplate, toTemplate, type Fillings } from './render-cache.js'

export interface RenderOptions {
  status: number
  /** Wait for the whole document (bots, crawlers) instead of streaming from the shell. */
  waitForAll: boolean
  /** A render still running after this is aborted. */
  timeoutMs: number
}

/** The inline script that hands the browser its data before the client bundle runs. */
export function bootstrapScript (data: PageData): string {
  return `window.ENV=${serializeForScript(data.env)};window.__PAGE_DATA__=${serializeForScript(data)}`
}

/**
 * What a document is rendered from, as a render cache key; null for data that
 * will not repeat. A flash toast carries a fresh id and is shown once, so
 * such a page is always rendered. The environment, the asset tags and the
 * honeypot's field names are the shell's own, the same for every page while
 * the cache lives (it lives on the shell), so only the request info and the
 * page make the key; data that brings its own is not cached.
 */
export function renderCacheKey (data: PageData, shell: Pick<Shell, 'publicEnv' | 'assets' | 'honeypot'>): string | null {
  if (data.toast) return null
  const { honeyProps } = data
  const shellsOwn = data.env === shell.publicEnv && data.assets === shell.assets &&
    honeyProps.nameFieldName === shell.honeypot.nameFieldName && honeyProps.validFromFieldName === shell.honeypot.validFromFieldName
  return shellsOwn ? JSON.stringify([data.requestInfo, data.page]) : null
}

/**
 * Sends <Document> for `data`: at once from the render cache when the same
 * data has been rendered before, else streamed once React's shell is ready
 * and, when it rendered without an error, kept for next time. Returns
 * nothing: the reply always ends, and a handler with nothing to wait for can
 * stay synchronous (Fastify then adds no promise and no finish listener).
 */
export function renderDocument (request: FastifyRequest, reply: FastifyReply, data: PageData, options: RenderOptions): void {
  const { shell } = request.server
  const { renderCache } = shell
  const key = renderCacheKey(data, shell)
  const fillings: Fillings = { nonce: reply.cspNonce.script, honeypotToken: data.honeyProps.encryptedValidFrom }
  const template = key === null ? undefined : renderCache.get(key)
  if (template) {
    reply.status(options.status).header('Content-Type', 'text/html; charset=utf-8').send(fillTemplate(template, fillings))
    return
  }
  streamDocument(request, reply, data, options, (html) => {
    if (key !== null) renderCache.set(key, toTemplate(html, fillings))
  })
}

/**
 * Streams <Document> to the reply. The stream is handed to reply.send() so
 * Fastify's hooks (cookies, security headers, compression) still apply
 * (fastify/fastify#2372). Every callback of renderToPipeableStream is handled
 * here: the shell failing becomes the 500 error document, a client leaving
 * or a render hanging aborts it, and the timer and listener are released when
 * the response ends. A document that streamed to its end without an error is
 * passed to `rendered`.
 */
function streamDocument (request: FastifyRequest, reply: FastifyReply, data: PageData, options: RenderOptions, rendered: (html: string) => void): void {
  const nonce = reply.cspNonce.script
  let sent = false
  let failedAfterShell = false
  // Only a document that rendered whole, with no error and no abort, is worth keeping.
  let whole = true
  const chunks: Buffer[] = []
  const body = new Transform({
    transform (chunk: Buffer, _encoding, done) {
      chunks.push(chunk)
      done(null, chunk)
    },
    flush (done) {
      if (whole) rendered(Buffer.concat(chunks).toString('utf8'))
      done()
    }
  })
  let timer: NodeJS.Timeout | undefined
  let released = false
  const onClose = () => {
    if (!reply.raw.writableFinished) stop(new Error('the client disconnected'))
    release()
  }
  function release () {
    released = true
    clearTimeout(timer)
    reply.raw.removeListener('close', onClose)
  }

  const { pipe, abort } = renderToPipeableStream(<Document data={data} pages={request.server.shell.pages} nonce={nonce} />, {
    nonce,
    bootstrapScriptContent: bootstrapScript(data),
    bootstrapModules: [data.assets.entry],
    onShellReady () {
      if (!options.waitForAll) send()
    },
    onAllReady () {
      if (options.waitForAll) send()
    },
    onShellError (error) {
      // React can still call onAllReady after this (facebook/react#36890): `sent` guards it.
      if (sent) return
      sent = true
      whole = false
      release()
      request.log.error({ err: error }, 'the document shell failed to render')
      sendErrorDocument(reply, data)
    },
    onError (error) {
      failedAfterShell = true
      whole = false
      request.log.error({ err: error }, 'rendering failed')
    }
  })

  function stop (reason: Error) {
    whole = false
    abort(reason)
  }

  if (!released) {
    timer = setTimeout(() => stop(new Error(`render timed out after ${options.timeoutMs} ms`)), options.timeoutMs)
    reply.raw.once('close', onClose)
  }

  function send () {
    if (sent) return
    sent = true
    // A bot waits for everything, so an error anywhere can still change its status.
    reply.status(failedAfterShell ? 500 : options.status)
    reply.header('Content-Type', 'text/html; charset=utf-8')
    pipe(body)
    reply.send(body)
  }
}

/** The error document: the same shell without page data, so nothing of the failure reaches the visitor. */
export function sendErrorDocument (reply: FastifyReply, data: PageData): FastifyReply {
  const errorData: PageData = { ...data, page: null, toast: null }
  let html: string
  try {
    html = renderToString(<Document data={errorData} pages={reply.server.shell.pages} nonce={reply.cspNonce.script} />)
  } catch (error) {
    reply.log.error({ err: error }, 'the error document failed to render')
    html = '<html lang="en" class="light"><head><meta charset="utf-8"><title>Error | Agent Stack</title></head><body><h1>Something went wrong</h1></body></html>'
  }
  // renderToString has no bootstrap options: the data script is added here with the nonce.
  const script = `<script nonce="${reply.cspNonce.script}">${bootstrapScript(errorData)}</script><script type="module" nonce="${reply.cspNonce.script}" src="${data.assets.entry}"></script>`
  return reply
    .status(500)
    .header('Content-Type', 'text/html; charset=utf-8')
    .send(`<!DOCTYPE html>${html.replace('</body>', `${script}</body>`)}`)
}
