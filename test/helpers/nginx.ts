import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import { freePort, startProcess } from './process.js'
import { readmeNginx } from './readme.js'

/** The name the block of docs/deploying.md serves, and the throwaway certificate is made for. */
export const HOSTNAME = 'agent-stack.example'

/** Polls `check` until it holds; fails with `what` past `timeoutMs`. */
export async function until (check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await sleep(50)
  }
}

/**
 * Debian's nginx with the block of docs/deploying.md: the upstream servers become our
 * instances, and it listens on a free port of 127.0.0.1 with a throwaway
 * certificate; nothing else of the block changes.
 */
export async function startNginx (t: Test, work: string, servers: string[]) {
  const dir = join(work, 'nginx')
  mkdirSync(dir)
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    mkdirSync(join(dir, temp))
    chmodSync(join(dir, temp), 0o777)
  }
  const certificate = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${HOSTNAME}`, '-addext', `subjectAltName=DNS:${HOSTNAME}`, '-keyout', key, '-out', certificate], { stdio: 'ignore' })
  const port = await freePort()
  let server = 0
  const block = readmeNginx()
    .replace(/^(\s*server\s+)\S+:\d+/gm, (_match, prefix: string) => `${prefix}${servers[server++]}`)
    .replace(/^(\s*listen\s+)\S+/m, `$1127.0.0.1:${port}`)
    .replace(/^(\s*ssl_certificate\s+)\S+;/m, `$1${certificate};`)
    .replace(/^(\s*ssl_certificate_key\s+)\S+;/m, `$1${key};`)
  if (server !== servers.length) throw new Error(`docs/deploying.md's upstream names ${server} servers, not ${servers.length}`)
  const accessLog = join(dir, 'access.log')
  writeFileSync(join(dir, 'nginx.conf'), `
daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  # The client's X-Request-Id, then the one nginx sends on: how a test maps the app's ids back to its requests.
  log_format rollout '$http_x_request_id $request_id $status upstream=$upstream_addr/$upstream_status $request_time';
  access_log ${accessLog} rollout;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
${block}
}
`)
  const check = spawnSync('nginx', ['-t', '-q', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { encoding: 'utf8' })
  if (check.status !== 0) throw new Error(`nginx refuses the block of docs/deploying.md: ${check.stderr}`)
  const nginx = startProcess(t, ['nginx', '-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], {})
  // Before startProcess's SIGKILL (teardowns run last first): a killed master would leave its worker behind.
  t.teardown(async () => {
    nginx.child.kill('SIGTERM')
    if (await Promise.race([nginx.exited.then(() => true), sleep(5000).then(() => false)])) return
    const pid = nginx.child.pid!
    for (const worker of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean)) process.kill(Number(worker), 'SIGKILL')
  })
  await until(() => new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  }), 10_000, 'nginx listening')
  return { port, certificate: readFileSync(certificate), accessLog: () => readFileSync(accessLog, 'utf8') }
}
