import type { FastifyReply, FastifyRequest } from 'fastify'
import { PassThrough } from 'node:stream'
import { renderToPipeableStream, renderToString } from 'react-dom/server'
import type { PageData } from '../shared/page-data.js'
import { serializeForScript } from '../shared/serialize.js'
import { Document } from '../ui/document.js'

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
 * Streams <Document> to the reply. The stream is handed to reply.send() so
 * Fastify's hooks (cookies, security headers, compression) still apply
 * (fastify/fastify#2372). Every callback of renderToPipeableStream is handled
 * here: the shell failing becomes the 500 error document, a client leaving
 * or a render hanging aborts it, and the timer and listener are released when
 * the response ends.
 */
export function renderDocument (request: FastifyRequest, reply: FastifyReply, data: PageData, options: RenderOptions): Promise<FastifyReply> {
  const nonce = reply.cspNonce.script
  return new Promise((resolve) => {
    let sent = false
    let failedAfterShell = false
    const body = new PassThrough()
    let timer: NodeJS.Timeout | undefined
    let released = false
    const onClose = () => {
      if (!reply.raw.writableFinished) abort(new Error('the client disconnected'))
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
        release()
        request.log.error({ err: error }, 'the document shell failed to render')
        resolve(sendErrorDocument(reply, data))
      },
      onError (error) {
        failedAfterShell = true
        request.log.error({ err: error }, 'rendering failed')
      }
    })

    if (!released) {
      timer = setTimeout(() => abort(new Error(`render timed out after ${options.timeoutMs} ms`)), options.timeoutMs)
      reply.raw.once('close', onClose)
    }

    function send () {
      if (sent) return
      sent = true
      // A bot waits for everything, so an error anywhere can still change its status.
      reply.status(failedAfterShell ? 500 : options.status)
      reply.header('Content-Type', 'text/html; charset=utf-8')
      pipe(body)
      resolve(reply.send(body))
    }
  })
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
