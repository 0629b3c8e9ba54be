import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'

/**
 * A TLS-terminating proxy in front of an app, as a load balancer would be:
 * https on 127.0.0.1 with a throwaway self-signed certificate (made with
 * openssl for this test only), plain http to the app, X-Forwarded-Proto and
 * X-Forwarded-For added. Browsers must run with --ignore-certificate-errors.
 */
export interface TlsFront {
  url: string
  /** Every request passed on: method, path and Content-Type. */
  requests: Array<{ method: string, url: string, contentType: string | undefined }>
}

export async function tlsFront (t: Test, upstream: string): Promise<TlsFront> {
  const dir = await mkdtemp(join(tmpdir(), 'tls-front-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const key = join(dir, 'key.pem')
  const cert = join(dir, 'cert.pem')
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert
  ])
  const target = new URL(upstream)
  const requests: TlsFront['requests'] = []
  const server = createServer({ key: await readFile(key), cert: await readFile(cert) }, (incoming, outgoing) => {
    requests.push({ method: incoming.method ?? '', url: incoming.url ?? '', contentType: incoming.headers['content-type'] })
    const headers = { ...incoming.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': incoming.socket.remoteAddress ?? '' }
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(outgoing)
    })
    forwarded.once('error', () => { outgoing.destroy() })
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}
