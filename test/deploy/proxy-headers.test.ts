import { mkdtempSync, rmSync, chmodSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { TEST_SECRETS } from '../helpers/app.js'
import { HOSTNAME, startNginx } from '../helpers/nginx.js'
import { startListening } from '../helpers/process.js'

/**
 * The nginx block of docs/deploying.md in front of one instance that trusts it: what a client sends in the headers the app
 * believes from that proxy (its own log id, trace context and host) never reaches the app.
 */

const FORGED_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'

t.test('behind the nginx of docs/deploying.md, a client chooses neither its log id, nor its trace, nor the host its page names', async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'agent-stack-proxy-'))
  chmodSync(work, 0o755)
  t.teardown(() => rmSync(work, { recursive: true, force: true }))
  const server = await startListening(t, { ...TEST_SECRETS, NODE_ENV: 'production', TRUST_PROXY: '127.0.0.1' })
  const address = `127.0.0.1:${server.port}`
  const proxy = await startNginx(t, work, [address, address, address])

  const page = await new Promise<{ status: number, body: string }>((resolve, reject) => {
    request({
      host: '127.0.0.1',
      port: proxy.port,
      servername: HOSTNAME,
      ca: proxy.certificate,
      path: '/?visit=forged',
      headers: {
        host: HOSTNAME,
        accept: 'text/html',
        'x-request-id': 'victim-req-42',
        traceparent: `00-${FORGED_TRACE}-00f067aa0ba902b7-01`,
        'x-forwarded-host': 'evil.example'
      }
    }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
    }).once('error', reject).end()
  })
  t.equal(page.status, 200)
  t.match(page.body, `<link rel="canonical" href="https://${HOSTNAME}/"`, 'the page names the host the proxy served')
  t.notMatch(page.body, /evil\.example/)

  const incoming = server.logs().find((line) => line.msg === 'incoming request' && String((line.req as { url?: string }).url).includes('visit=forged'))
  t.ok(incoming, 'the request was logged')
  const sentOn = proxy.accessLog().split('\n').find((line) => line.startsWith('victim-req-42 '))?.split(' ')[1]
  t.match(sentOn, /^[0-9a-f]{32}$/, 'nginx gave the request an id of its own')
  t.equal(incoming?.requestId, sentOn, 'and the app logs under it')
  t.not(incoming?.requestId, FORGED_TRACE, 'not the client\'s trace id')
  t.match(incoming?.req, { host: HOSTNAME })
  t.notMatch(JSON.stringify(server.logs()), /victim-req-42|evil\.example/, 'nothing the client forged is in the logs')
})
