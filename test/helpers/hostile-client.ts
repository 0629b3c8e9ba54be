import { connect, type Socket } from 'node:net'
import { parseResponse } from './raw-http.js'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  /** Decoded from chunked transfer coding when the server used it. */
  body: string
  /** The server closed or reset the connection before the whole request body was sent (it answered early). */
  cutOff: boolean
}

/** Bytes at a time, so that sending stops soon after the server answers early. */
const CHUNK = 64 * 1024

/**
 * Sends `head` and `body` byte for byte on a connection of its own, as no
 * HTTP library would (malformed escapes, thousands of headers, megabytes of
 * body), and reads until the server closes it: send `Connection: close`.
 * The server's own parser meets the input. A body stops being sent once the
 * answer starts, as browsers do when a server refuses early.
 */
export function sendRaw (port: number, head: string, body?: Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const received: Buffer[] = []
    let cutOff = false
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') cutOff = true
      else reject(error)
    })
    socket.once('close', () => {
      clearTimeout(timer)
      try {
        const { status, headers, body } = parseResponse(Buffer.concat(received))
        resolve({ status, headers, body: body.toString('utf8'), cutOff })
      } catch (error) {
        reject(error)
      }
    })
    socket.once('connect', async () => {
      socket.write(head)
      if (!body) return
      let sent = 0
      while (sent < body.length && received.length === 0 && socket.writable) {
        const flushed = socket.write(body.subarray(sent, sent + CHUNK))
        sent += CHUNK
        if (!flushed) await drainedOrClosed(socket)
      }
      if (sent < body.length) cutOff = true
    })
  })
}

function drainedOrClosed (socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done).off('close', done)
      resolve()
    }
    socket.on('drain', done).on('close', done)
  })
}
