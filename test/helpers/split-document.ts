import { createServer, request as forward } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

export interface SplitOptions {
  /** The document is cut right after the first occurrence of this text. */
  after: string
  /** How long its second piece waits. */
  pauseMs: number
}

/**
 * A proxy in front of the app that delivers each HTML document in two pieces, a pause between them, as a slow
 * network can (a congestion window's worth, then the rest). Everything else passes through as it is. Documents
 * are asked for uncompressed, so the cut falls where it is meant to.
 */
export async function splitDocumentProxy (t: Test, appUrl: string, { after, pauseMs }: SplitOptions): Promise<string> {
  const server = createServer((incoming, outgoing) => {
    const upstream = forward(`${appUrl}${incoming.url}`, { method: incoming.method, headers: { ...incoming.headers, 'accept-encoding': 'identity' } }, (answer) => {
      if (!String(answer.headers['content-type']).startsWith('text/html')) {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
        return
      }
      const chunks: Buffer[] = []
      answer.on('data', (chunk: Buffer) => chunks.push(chunk))
      answer.on('end', () => {
        const body = Buffer.concat(chunks)
        const { 'content-length': _length, ...headers } = answer.headers
        outgoing.writeHead(answer.statusCode ?? 502, headers)
        const cut = body.indexOf(after)
        // Sent whole, the document could not show what the test is after.
        if (cut === -1) {
          t.fail(`the document has no ${JSON.stringify(after)} to cut after`)
          outgoing.end(body)
          return
        }
        outgoing.write(body.subarray(0, cut + Buffer.byteLength(after)))
        setTimeout(() => outgoing.end(body.subarray(cut + Buffer.byteLength(after))), pauseMs)
      })
    })
    incoming.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
