import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ReactNode } from 'react'
import type { Socket } from 'node:net'
import { Writable } from 'node:stream'
import { renderToPipeableStream, renderToString } from 'react-dom/server'
import type { PageData } from '../../shared/page-data.js'
import { serializeForScript } from '../../shared/serialize.js'
import { abortRequest, clientWentAway } from '../http/request-abort.js'
import { addVary } from '../http/negotiation.js'
import type { DeferredParts } from './deferred-parts.js'
import { documentSink, type DocumentEncoding, type DocumentSink } from './document-encoding.js'
import type { Capture } from './render-cache.js'
import { serializePage } from './page-data-json.js'

// How a waiting document leaves (docs/decisions/streaming-to-script-runners.md): `whole` lets a failure still set the
// status (bots); `held` sends the head at once and the body when ready (scripts may not run); `streamed` each part.
export type Delivery = 'whole' | 'held' | 'streamed'

export interface RenderOptions {
  status: number
  delivery: Delivery
  timeLimitMs: number
  nonce: string
  /** Inert by construction, as written into the page: no `<` (dev-script.ts serializes its data with serializeForScript). */
  script: string
  capture: Capture
  deferred: DeferredParts | null
  /** A function: only a document that waits listens for the client going away. */
  signal: () => AbortSignal
  encoding: DocumentEncoding
  onShellFailed: (error: unknown, componentStack: string | undefined) => void
}

const ENV_SCRIPTS = new WeakMap<object, string>()

// The env is one object per app, so serialized once; the page data leaves it out (src/client/page-data.ts puts it back).
export function bootstrapScript (data: PageData): string {
  let env = ENV_SCRIPTS.get(data.env)
  if (env === undefined) ENV_SCRIPTS.set(data.env, env = `window.ENV=${serializeForScript(data.env)};`)
  return `${env}window.__PAGE_DATA__=${serializePage(data, sentJson)}`
}

const sentJson = (data: PageData) => serializeForScript({ ...data, env: undefined })

function renderOptions (data: PageData, nonce: string, script: string) {
  return { nonce, bootstrapScriptContent: bootstrapScript(data) + script, bootstrapModules: [data.assets.entry] }
}

/** React's mark of a Suspense boundary it left for the browser to render: the part waited on something, or failed. */
const CLIENT_RENDERED_BOUNDARY = '<!--$!-->'

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
  const scripts = `<script nonce="${nonce}">${bootstrapScript(data)}${script}</script><script type="module" src="${data.assets.entry}" nonce="${nonce}" async=""></script>`
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

const HEAD_END = '</head>'

// Up to the first pending part, as the streaming renderer writes it; null sends the page whole.
export function renderHeldStart (element: ReactNode): string | null {
  let html: string
  try {
    html = '<!DOCTYPE html>' + renderToString(element)
  } catch {
    return null
  }
  const headEnd = html.indexOf(HEAD_END)
  if (headEnd === -1) return null
  const pending = html.indexOf(CLIENT_RENDERED_BOUNDARY, headEnd)
  return html.slice(0, pending === -1 ? headEnd + HEAD_END.length : pending)
}

// The socket is corked, not the response: a corked response sends its chunked end before the chunks it holds (Node 24).
interface ConnectionHold {
  hold (): void
  release (): void
  /** Lets every hold go at once: the response pushes back, and a held socket never drains. */
  letGo (): void
}

// Only while the response still writes (a HEAD's ends first), and uncorked on the socket it corked: a finished
// response drops its socket, and one left corked never answers the next request on the connection.
function connectionHold (reply: FastifyReply): ConnectionHold {
  const held: Socket[] = []
  return {
    hold () {
      const socket = reply.raw.writableEnded ? null : reply.raw.socket
      if (!socket) return
      socket.cork()
      held.push(socket)
    },
    release () {
      held.pop()?.uncork()
    },
    letGo () {
      for (const socket of held.splice(0)) socket.uncork()
    }
  }
}

// Drops React's copy of a held document's sent start (its head may differ; a body that differs is reported and sent
// whole). Each socket write wakes both ends, so each of React's passes leaves in one.
class DocumentWriter {
  #started = false
  #ended = false
  /** React has ended, but a part no boundary read is still on its way: the response ends when it comes. */
  #ending = false
  /** React's last pass ended with flush(): its next write starts a pass, where a script may go between. */
  #betweenPasses = true
  #passHeld = false
  readonly #queued: string[] = []
  #replaced: Buffer | null = null
  readonly #sentBody: Buffer = Buffer.alloc(0)
  constructor (
    private readonly sink: DocumentSink,
    private readonly capture: Capture,
    sent: string | null,
    private readonly onBodyMismatch: () => void,
    private readonly connection: ConnectionHold,
    private readonly pendingParts: () => number
  ) {
    if (sent === null) return
    this.#replaced = Buffer.alloc(0)
    this.#sentBody = Buffer.from(sent.slice(sent.indexOf(HEAD_END) + HEAD_END.length))
    capture.piece(sent)
  }

  write (chunk: Uint8Array | string): boolean {
    if (this.#betweenPasses) {
      this.#betweenPasses = false
      this.#passHeld = true
      this.connection.hold()
      if (this.#started) this.#writeQueued()
    }
    return this.#write(chunk)
  }

  #write (chunk: Uint8Array | string): boolean {
    if (this.#replaced !== null) {
      const replaced = this.#replaced = Buffer.concat([this.#replaced, typeof chunk === 'string' ? Buffer.from(chunk) : chunk])
      const headEnd = replaced.indexOf(HEAD_END)
      if (headEnd === -1) return true
      const body = replaced.subarray(headEnd + HEAD_END.length)
      if (body.length < this.#sentBody.length && this.#sentBody.subarray(0, body.length).equals(body)) return true
      this.#replaced = null
      if (body.subarray(0, this.#sentBody.length).equals(this.#sentBody)) {
        chunk = body.subarray(this.#sentBody.length)
      } else {
        this.onBodyMismatch()
        chunk = body
      }
      if (chunk.length === 0) return true
    }
    this.capture.piece(chunk)
    return this.sink.input.write(chunk)
  }

  #writeQueued (): void {
    for (const html of this.#queued.splice(0)) this.#write(html)
  }

  flush (): void {
    this.#betweenPasses = true
    const held = this.#passHeld
    this.#passHeld = false
    this.sink.flush(held ? this.connection.release : () => {})
  }

  #send (scripts: string[]): void {
    if (scripts.length === 0) return
    this.connection.hold()
    for (const html of scripts) this.#write(html)
    this.sink.flush(this.connection.release)
  }

  // Between React's passes, never inside one (its writes split tags); an awaited part goes with the pass revealing it.
  script (html: string, withNextPass: boolean): void {
    if (this.#ended) return
    if (!this.#started || (withNextPass && !this.#ending)) {
      this.#queued.push(html)
      return
    }
    this.#send([html])
    if (this.#ending && this.pendingParts() === 0) this.#end()
  }

  start (): void {
    this.#started = true
    this.#send(this.#queued.splice(0))
  }

  /** A part no boundary read may still be on its way: the response waits for it, within the time limit. */
  end (): void {
    if (this.pendingParts() === 0) return this.#end()
    this.#ending = true
    this.#writeQueued()
    this.flush()
  }

  #end (): void {
    this.#ended = true
    this.#writeQueued()
    this.capture.end()
    // Let go by the response's end(), which releases the connection whole.
    this.connection.hold()
    this.sink.input.end()
  }

  // Not 'close': React builds an Error for it and aborts, even when it had finished (some 10 µs of each streamed
  // document's CPU); a client that leaves is seen by the request's signal, which stops the render (sendDocument).
  on (event: string, listener: (...args: unknown[]) => void): this {
    if (event !== 'close') this.sink.input.on(event, listener)
    return this
  }
}

// Through reply.send() so Fastify's hooks still apply (fastify#2372); one that waits on nothing is sent whole, as a
// stream costs more than its render.
export function sendDocument (request: FastifyRequest, reply: FastifyReply, element: ReactNode, data: PageData, options: RenderOptions): void {
  const { capture, deferred } = options
  if (deferred === null) {
    const atOnce = renderAtOnce(element, data, options.nonce, options.script)
    if (atOnce !== null) {
      const bytes = Buffer.from(atOnce)
      capture.whole(bytes)
      reply.status(options.status).header('Content-Type', 'text/html; charset=utf-8').send(bytes)
      return
    }
  }
  const signal = options.signal()
  const connection = connectionHold(reply)
  let sent = false
  let allReady = false
  let failedAfterShell = false
  let shellFailed = false
  let componentStack: string | undefined
  let timer: NodeJS.Timeout | undefined
  let writer: DocumentWriter | null = null
  let held: { sink: DocumentSink, start: string | null } | null = null
  /** Scripts of parts that settled before any writer: a bot's whole document ends with them. */
  const early: string[] = []

  deferred?.listen((_key, script, awaited) => {
    // A failed part is one moment's (a service down): kept, it would be every later visitor's (cacheDeferred).
    if (deferred.failed) capture.spoil()
    const html = `<script nonce="${options.nonce}">${script}</script>`
    if (writer) writer.script(html, awaited)
    else early.push(html)
  })

  const { pipe, abort } = renderToPipeableStream(element, {
    ...renderOptions(data, options.nonce, options.script),
    onShellReady () {
      // React calls onAllReady next, in the same pass, when nothing is left to wait for.
      if (options.delivery !== 'whole') queueMicrotask(() => { if (!sent) open() })
    },
    onAllReady () {
      allReady = true
      // The abort of a client that left settles every boundary: nobody is left to write the held document to.
      if (clientWentAway(signal)) return
      // A part no boundary reads may still be on its way: a document that streams waits for it; a bot's does not.
      if (!sent && (options.delivery === 'whole' || (deferred?.pending ?? 0) === 0)) return sendWhole()
      if (!sent) open()
      if (writer === null && held !== null) pipeInto(held.sink, held.start)
    },
    onShellError (error) {
      shellFailed = true
      // React can still call onAllReady after this (facebook/react#36890): `sent` guards it.
      if (sent) return
      sent = true
      release()
      options.onShellFailed(error, componentStack)
    },
    // Also called for the error that fails the shell, just before onShellError, and for each part an abort leaves.
    onError (error, errorInfo) {
      componentStack = errorInfo.componentStack
      failedAfterShell = true
      capture.spoil()
      // A client that went away, or the time limit (logged once by stop()), is not a failure of the page.
      if (signal.aborted) return
      reply.documentFailed()
      // The error that fails the shell is logged by onShellFailed's caller (page-rendering.tsx): once.
      queueMicrotask(() => { if (!shellFailed) request.log.error({ err: error }, 'rendering failed') })
    }
  })

  const onAbort = () => stop(signal.reason)
  function release () {
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
  }
  function stop (reason: unknown) {
    release()
    capture.spoil()
    if (clientWentAway(signal)) {
      request.log.info('the client went away: rendering stopped')
      abort(reason)
      return
    }
    // The time limit: pending parts show as failed; React needs two turns to render them, the rest is left to the browser.
    request.log.warn({ timeLimitMs: options.timeLimitMs, pending: deferred?.pending ?? 0 }, 'the document reached its time limit')
    deferred?.expire()
    setImmediate(() => setImmediate(() => abort(reason)))
  }

  // React renders in a microtask queued before this one: a document not finished here waits on something (a boundary,
  // or a part no boundary reads), and gets a time limit and a disconnect watch, both released when its response ends.
  queueMicrotask(() => {
    if (allReady && (deferred?.pending ?? 0) === 0) return
    timer = setTimeout(() => abortRequest(reply, new Error(`the document took longer than ${options.timeLimitMs} ms`)), options.timeLimitMs)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    reply.raw.once('finish', release)
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
    const bytes = Buffer.concat([whole.bytes(), Buffer.from(early.join(''))])
    // A failed one was spoiled by onError.
    if (whole.ended) capture.whole(bytes)
    reply.send(bytes)
  }

  // Headers and head now, whatever the data waits for: the browser fetches the stylesheet and scripts meanwhile.
  function open () {
    begin()
    reply.documentDelivery(options.delivery)
    const sink = documentSink(options.encoding)
    if (sink.encoding) reply.header('Content-Encoding', sink.encoding)
    addVary(reply, 'Accept-Encoding')
    reply.send(sink.body)
    // The response pushes back once a held socket holds more than its buffer takes (a long pass, a slow reader): the
    // pipe then pauses the sink, and React waits for it to drain, which a corked socket never does. So it is let go.
    sink.body.on('pause', connection.letGo)
    if (options.delivery === 'streamed') return pipeInto(sink, null)
    // Written when ready, complete without scripts; its start goes now (docs/decisions/streaming-to-script-runners.md).
    held = { sink, start: renderHeldStart(element) }
    if (held.start === null) return
    connection.hold()
    sink.input.write(held.start)
    sink.flush(connection.release)
    reply.documentHeadSent()
  }

  function pipeInto (sink: DocumentSink, sent: string | null) {
    const destination = writer = new DocumentWriter(sink, capture, sent, () => {
      capture.spoil()
      request.log.error('a held document rendered differently the second time: its body was sent again in full; a component reads something besides its data (the clock, a random number)')
    }, connection, () => deferred?.pending ?? 0)
    for (const html of early.splice(0)) destination.script(html, false)
    pipe(destination as unknown as NodeJS.WritableStream)
    destination.start()
    reply.documentHeadSent()
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
