import { get, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip } from 'node:zlib'

/** A response read as it arrives over a real socket, decoded chunk by chunk: what a browser sees, and when. */
export interface StreamedResponse {
  headers: Promise<{ status: number, headers: IncomingHttpHeaders }>
  /** Everything decoded so far. */
  readonly text: string
  /** Resolves once the decoded text matches; rejects if the response ends without it. */
  waitFor (pattern: RegExp): Promise<string>
  ended: Promise<string>
  /** Closes the connection, as a visitor leaving the page does. */
  abandon (): void
}

export function openStreamed (url: string, headers: Record<string, string>): StreamedResponse {
  let text = ''
  const waiters: Array<{ pattern: RegExp, resolve: (text: string) => void, reject: (error: Error) => void }> = []
  let resolveEnd!: (text: string) => void
  let rejectEnd!: (error: Error) => void
  const ended = new Promise<string>((resolve, reject) => { resolveEnd = resolve; rejectEnd = reject })
  ended.catch(() => {})
  let resolveHeaders!: (value: { status: number, headers: IncomingHttpHeaders }) => void
  const headersArrived = new Promise<{ status: number, headers: IncomingHttpHeaders }>((resolve) => { resolveHeaders = resolve })

  const check = () => {
    for (const waiter of waiters.splice(0)) {
      if (waiter.pattern.test(text)) waiter.resolve(text)
      else waiters.push(waiter)
    }
  }
  const finish = (error?: Error) => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the response ended without ${waiter.pattern}`))
    if (error) rejectEnd(error)
    else resolveEnd(text)
  }

  const request = get(url, { headers }, (response: IncomingMessage) => {
    resolveHeaders({ status: response.statusCode ?? 0, headers: response.headers })
    const encoding = response.headers['content-encoding']
    const decoded: Readable = encoding === 'br' ? response.pipe(createBrotliDecompress()) : encoding === 'gzip' ? response.pipe(createGunzip()) : response
    decoded.setEncoding('utf8')
    decoded.on('data', (chunk: string) => { text += chunk; check() })
    decoded.on('end', () => finish())
    decoded.on('error', finish)
    response.on('error', finish)
  })
  request.on('error', finish)

  return {
    headers: headersArrived,
    get text () { return text },
    waitFor (pattern) {
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve, reject })
        check()
      })
    },
    ended,
    abandon () { request.destroy() }
  }
}

/** A promise the test settles: a deferred part that arrives exactly when the test says. */
export function gate<Value> (): { promise: Promise<Value>, open: (value: Value) => void, fail: (error: Error) => void } {
  let open!: (value: Value) => void
  let fail!: (error: Error) => void
  const promise = new Promise<Value>((resolve, reject) => { open = resolve; fail = reject })
  return { promise, open, fail }
}
