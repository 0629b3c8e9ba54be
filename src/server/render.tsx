import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ReactNode } from 'react'
import { Writable } from 'node:stream'
import { renderToPipeableStream } from 'react-dom/server'
import type { PageData } from '../shared/page-data.js'
import { serializeForScript } from '../shared/serialize.js'
import type { Capture } from './render-cache.js'

export interface RenderOptions {
  status: number
  /** For bots: the whole document, not streamed from the shell. */
  waitForAll: boolean
  timeoutMs: number
  nonce: string
  /** Run after the page data is set (the development server's script). */
  script: string
  capture: Capture
  /** With React's component stack of the failure. */
  onShellFailed: (error: unknown, componentStack: string | undefined) => void
}

export function bootstrapScript (data: PageData): string {
  return `window.ENV=${serializeForScript(data.env)};window.__PAGE_DATA__=${serializeForScript(data)}`
}

function renderOptions (data: PageData, nonce: string, script: string) {
  return { nonce, bootstrapScriptContent: bootstrapScript(data) + script, bootstrapModules: [data.assets.entry] }
}

/**
 * Streams a document through reply.send(), so Fastify's hooks still apply
 * (fastify#2372). Every callback of renderToPipeableStream is handled here;
 * a failure after the shell or an abort spoils the capture.
 */
export function streamDocument (request: FastifyRequest, reply: FastifyReply, element: ReactNode, data: PageData, options: RenderOptions): void {
  const { capture } = options
  let sent = false
  let failedAfterShell = false
  let componentStack: string | undefined
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

  const { pipe, abort } = renderToPipeableStream(element, {
    ...renderOptions(data, options.nonce, options.script),
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
      options.onShellFailed(error, componentStack)
    },
    // Also called for the error that fails the shell, just before onShellError.
    onError (error, errorInfo) {
      componentStack = errorInfo.componentStack
      failedAfterShell = true
      capture.spoil()
      reply.documentFailed()
      request.log.error({ err: error }, 'rendering failed')
    }
  })

  function stop (reason: Error) {
    capture.spoil()
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
    pipe(capture.stream)
    reply.send(capture.stream)
  }
}

export function renderToHtml (element: ReactNode, data: PageData, nonce: string, script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const sink = new Writable({
      write (chunk: Buffer, _encoding, done) { chunks.push(chunk); done() },
      final (done) { resolve(Buffer.concat(chunks).toString('utf8')); done() }
    })
    const { pipe } = renderToPipeableStream(element, {
      ...renderOptions(data, nonce, script),
      onAllReady () { pipe(sink) },
      onShellError: reject,
      onError: reject
    })
  })
}
