import t, { type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { LightMyRequestResponse } from 'fastify'
import { DEFAULT_INGEST_ORIGIN, TRUSTED_TYPES_REPORT_ONLY } from '../../src/server/plugins/external/security.js'
import { build } from '../helpers/app.js'

/** The enforced Content-Security-Policy of a response, as directive → sources. */
function csp (response: LightMyRequestResponse): Map<string, string[]> {
  const header = response.headers['content-security-policy']
  if (typeof header !== 'string') throw new Error('no enforced Content-Security-Policy header')
  return new Map(header.split(';').map((part) => part.trim()).filter(Boolean).map((part) => {
    const [name = '', ...sources] = part.split(/\s+/)
    return [name, sources]
  }))
}

async function homeCsp (t: Test, env: Record<string, string>) {
  const { app } = await build(t, { env })
  const response = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(response.statusCode, 200)
  // The tracker's sources are enforced; only Trusted Types is on trial (docs/decisions/trusted-types.md).
  t.equal(response.headers['content-security-policy-report-only'], TRUSTED_TYPES_REPORT_ONLY, 'enforced, not report-only')
  return csp(response)
}
t.test('with a project key and a self-hosted ingest point, the CSP allows its origin and the blob: worker', async (t) => {
  const policy = await homeCsp(t, { OPENREPLAY_PROJECT_KEY: 'project-key', OPENREPLAY_INGEST_POINT: 'https://ingest.example.com:8443/ingest' })
  t.same(policy.get('connect-src'), ["'self'", 'https://ingest.example.com:8443'], 'the origin, not the path')
  t.same(policy.get('worker-src'), ["'self'", 'blob:'])
  // The tracker sends image and stylesheet URLs as data (the player fetches
  // them), so its capture needs nothing more; scripts and styles stay nonce-only.
  t.notOk(policy.get('script-src')?.includes('blob:'), 'no blob: scripts')
  t.notOk(policy.get('default-src')?.includes('blob:'), 'no blob: by default')
})

/** The ingest point the installed tracker falls back to, read from its own code. */
function trackerDefaultIngestPoint (): string {
  const code = readFileSync(createRequire(import.meta.url).resolve('@openreplay/tracker'), 'utf8')
  const found = /const DEFAULT_INGEST_POINT = '([^']+)'/.exec(code)?.[1]
  if (!found) throw new Error('@openreplay/tracker no longer declares DEFAULT_INGEST_POINT: check where it sends recordings')
  return found
}

t.test('with a project key alone, the CSP allows the library\'s default ingest origin', async (t) => {
  const origin = new URL(trackerDefaultIngestPoint()).origin
  t.equal(DEFAULT_INGEST_ORIGIN, origin, 'the origin the installed tracker sends to')
  const policy = await homeCsp(t, { OPENREPLAY_PROJECT_KEY: 'project-key' })
  t.same(policy.get('connect-src'), ["'self'", origin])
  t.same(policy.get('worker-src'), ["'self'", 'blob:'])
})

t.test('without a project key, the CSP names neither an ingest origin nor blob: workers', async (t) => {
  // An ingest point alone does not turn the tracker on.
  const policy = await homeCsp(t, { OPENREPLAY_INGEST_POINT: 'https://ingest.example.com/ingest' })
  t.same(policy.get('connect-src'), ["'self'"])
  t.same(policy.get('worker-src'), ["'self'"])
})
