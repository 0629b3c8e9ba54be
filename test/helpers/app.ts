import type { FastifyInstance } from 'fastify'
import type { LightMyRequestResponse } from 'fastify'
import { Writable } from 'node:stream'
import type { Test } from 'tap'
import { buildApp, type AppOptions } from '../../src/server/app.js'
import { loadEnv, type Env } from '../../src/server/env.js'
import type { PageData } from '../../src/shared/page-data.js'

export interface TestApp {
  app: FastifyInstance
  env: Env
  /** Every log line the app wrote, parsed. */
  logs: Array<Record<string, unknown> & { level: number, msg?: string }>
}

/** Fixed secrets, so no test depends on the random ones generated outside production. */
export const TEST_SECRETS = {
  SESSION_SECRET: 'test-session-secret-0123456789abcdef0123456789',
  HONEYPOT_SECRET: 'test-honeypot-secret-0123456789abcdef012345678'
}

/** The environment tests run with: the embedded defaults plus fixed secrets, overridable per test. */
export function testEnv (overrides: Record<string, string> = {}): Env {
  // No load shedding unless a test turns it on: a busy test machine's event-loop delay is not the app's behaviour.
  return loadEnv({ NODE_ENV: 'test', LOAD_SHEDDING_DELAY_MS: '0', ...TEST_SECRETS, ...overrides }).env
}

/** The app's options, with `env` as overrides of the test environment (raw strings, validated like the real ones). */
export type BuildOptions = Omit<Partial<AppOptions>, 'env'> & { env?: Record<string, string>, allowErrorLogs?: boolean }

/**
 * Builds the real app for one test, captures its logs and closes it at
 * teardown. An error logged that the test did not expect fails the test:
 * pass `allowErrorLogs` where an error log is the behaviour under test.
 */
export async function build (t: Test, options: BuildOptions = {}): Promise<TestApp> {
  const logs: TestApp['logs'] = []
  const stream = new Writable({
    write (chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) {
        if (!line) continue
        const entry = JSON.parse(line)
        logs.push(entry)
        if (entry.level >= 50 && !options.allowErrorLogs) t.fail(`unexpected error log: ${entry.msg} ${entry.err?.message ?? ''}`)
      }
      done()
    }
  })
  const env = testEnv(options.env)
  const app = await buildApp({ ...options, env, logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  return { app, env, logs }
}

/** The value a response sets for a cookie, with its attributes, or undefined. */
export function setCookie (response: LightMyRequestResponse, name: string) {
  return response.cookies.find((cookie) => cookie.name === name)
}

/** What the render cache did for a document (hit, miss or bypass), as its Server-Timing header says; undefined for any other response. */
export function cacheOutcome (response: LightMyRequestResponse): string | undefined {
  return /\bcache;desc=(\w+)/.exec(String(response.headers['server-timing'] ?? ''))?.[1]
}

/** Posts a URL-encoded form the way a browser without JavaScript does. */
export function postForm (app: FastifyInstance, url: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) {
    for (const item of ([] as string[]).concat(value)) body.append(name, item)
  }
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
    payload: body.toString()
  })
}

/** The inline scripts of a document and their nonce attributes. */
export function inlineScripts (html: string): Array<{ nonce: string | undefined, body: string }> {
  return [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    .map(([, attributes = '', body = '']) => ({ nonce: /nonce="([^"]*)"/.exec(attributes)?.[1], body, external: /\ssrc=/.test(attributes) }))
    .filter((script) => !script.external)
    .map(({ nonce, body }) => ({ nonce, body }))
}

const ENV_PREFIX = 'window.ENV='
const PAGE_DATA_PREFIX = ';window.__PAGE_DATA__='

/** The page data a document hands the browser (window.__PAGE_DATA__ with window.ENV), read as the client reads it. */
export function pageData (html: string): PageData {
  const script = inlineScripts(html).find(({ body }) => body.includes(PAGE_DATA_PREFIX))
  if (!script) throw new Error('the document has no page data script')
  const { body } = script
  const dataAt = body.indexOf(PAGE_DATA_PREFIX)
  const env = JSON.parse(body.slice(body.indexOf(ENV_PREFIX) + ENV_PREFIX.length, dataAt)) as PageData['env']
  return { ...JSON.parse(body.slice(dataAt + PAGE_DATA_PREFIX.length)) as Omit<PageData, 'env'>, env }
}
