import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ReactNode } from 'react'
import { Writable } from 'node:stream'
import { renderToPipeableStream, renderToString } from 'react-dom/server'
import type { PageData } from '../../shared/page-data.js'
import { serializeForScript } from '../../shared/serialize.js'
import type { Capture } from './render-cache.js'

export interface RenderOptions {
  status: number
  /** For bots: the whole document, not streamed from the shell. */
  waitForAll: boolean
  timeoutMs: number
  nonce: string
  /** The development server's script, run after the page data is set. */
  script: string
  capture: Capture
  onShellFailed: (error: unknown, componentStack: string | undefined) => void
}

const ENV_SCRIPTS = new WeakMap<object, string>()

/** The public env is one object per app, so its part is serialized once. */
export function bootstrapScript (data: PageData): string {
  let env = ENV_SCRIPTS.get(data.env)
  if (env === undefined) ENV_SCRIPTS.set(data.env, env = `window.ENV=${serializeForScript(data.env)};`)
  return `${env}window.__PAGE_DATA__=${serializeForScript(data)}`
}

function renderOptions (data: PageData, nonce: string, script: string) {
  return { nonce, bootstrapScriptContent: bootstrapScript(data) + script, bootstrapModules: [data.assets.entry] }
}

/** React's mark of a Suspense boundary it left for the browser to render: the part waited on something, or failed. */
const CLIENT_RENDERED_BOUNDARY = '<!--$!-->'
/** Escaped in a bootstrap script exactly as React escapes it. */
const SCRIPT_TAG = /(<\/|<)(s)(cript)/gi
const escapeScriptTags = (script: string) => script.replace(SCRIPT_TAG, (_, prefix: string, s: string, rest: string) => `${prefix}${s === 's' ? '\\u0073' : '\\u0053'}${rest}`)

// The cheaper string renderer; null when a part waits or fails, so the streaming one takes over and reports it
// (docs/decisions/pages-rendered-per-request.md). It writes no bootstrap scripts, so they are added as React would.
export function renderAtOnce (element: ReactNode, data: PageData, nonce: string, script: string): string | null {
  let html: string
  try {
    html = renderToString(element)
  } catch {
    return null
  }
  const end = html.lastIndexOf('</body>')
  if (end === -1 || html.includes(CLIENT_RENDERED_BOUNDARY)) return null
  const scripts = `<script nonce="${nonce}">${bootstrapScript(data)}${script && escapeScriptTags(script)}</script><script type="module" src="${data.assets.entry}" nonce="${nonce}" async=""></script>`
  // The string renderer leaves out the doctype the streaming one writes: without it a browser renders in quirks mode.
  return '<!DOCTYPE html>' + html.slice(0, end) + scripts + html.slice(end)
}

class WholeDocument {
  readonly chunks: Uint8Array[] = []
  ended = false
  write (chunk: Uint8Array | string): boolean {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    return true
  }

  end (): void {
    this.ended = true
  }

  on (): this {
    return this
  }

  bytes (): Buffer {
    return Buffer.concat(this.chunks)
  }
}

// Through reply.send() so Fastify's hooks still apply (fastify#2372). A document that waits on nothing is sent
// whole, since a stream costs more than the render; one that waits streams from its shell. Every callback of
// renderToPipeableStream is handled here; a failure after the shell or an abort spoils the capture.
export function sendDocument (request: FastifyRequest, reply: FastifyReply, element: ReactNode, data: PageData, options: RenderOptions): void {
  const { capture } = options
  const atOnce = renderAtOnce(element, data, options.nonce, options.script)
  if (atOnce !== null) {
    const bytes = Buffer.from(atOnce)
    capture.whole(bytes)
    reply.status(options.status).header('Content-Type', 'text/html; charset=utf-8').send(bytes)
    return
  }
  let sent = false
  let failedAfterShell = false
  let componentStack: string | undefined
  let timer: NodeJS.Timeout | undefined
  let watching = false
  const onClose = () => {
    if (!reply.raw.writableFinished) stop(new Error('the client disconnected'))
    release()
  }
  function release () {
    if (!watching) return
    watching = false
    clearTimeout(timer)
    reply.raw.removeListener('close', onClose)
  }

  const { pipe, abort } = renderToPipeableStream(element, {
    ...renderOptions(data, options.nonce, options.script),
    onShellReady () {
      // React calls onAllReady next, in the same pass, when nothing is left to wait for.
      if (!options.waitForAll) queueMicrotask(() => { if (!sent) stream() })
    },
    onAllReady () {
      if (!sent) sendWhole()
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

  // React renders in a microtask queued before this one: a document still
  // unsent here waits on something, and gets a time limit and a disconnect watch.
  queueMicrotask(() => {
    if (sent) return
    watching = true
    timer = setTimeout(() => stop(new Error(`render timed out after ${options.timeoutMs} ms`)), options.timeoutMs)
    reply.raw.once('close', onClose)
  })

  function begin (): void {
    sent = true
    // A bot waits for everything, so an error anywhere can still change its status.
    reply.status(failedAfterShell ? 500 : options.status)
    reply.header('Content-Type', 'text/html; charset=utf-8')
  }

  function sendWhole () {
    begin()
    release()
    const whole = new WholeDocument()
    // React uses only write, end and on of its destination.
    pipe(whole as unknown as NodeJS.WritableStream)
    const bytes = whole.bytes()
    if (whole.ended && !failedAfterShell) capture.whole(bytes)
    reply.send(bytes)
  }

  function stream () {
    begin()
    const streamed = capture.stream()
    pipe(streamed)
    reply.send(streamed)
  }
}

export function renderToHtml (element: ReactNode, data: PageData, nonce: string, script: string): Promise<string> {
  const atOnce = renderAtOnce(element, data, nonce, script)
  if (atOnce !== null) return Promise.resolve(atOnce)
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
