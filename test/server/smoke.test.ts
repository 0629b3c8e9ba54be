import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, type TestApp } from '../helpers/app.js'

t.test('the home page is the document in the light theme', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(response.statusCode, 200)
  t.match(response.body, /^<!DOCTYPE html><html lang="en" class="light"[ >]/)
  t.match(response.body, '<title>Agent Stack</title>')
})

/** The id the app logged a request under. */
function loggedId (app: FastifyInstance, logs: TestApp['logs']) {
  return async (headers: Record<string, string>) => {
    const before = logs.length
    await app.inject({ url: '/', headers })
    return logs.slice(before).find((line) => line.msg === 'incoming request')?.requestId
  }
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`
const FRESH = /^[\w-]+-[0-9a-z]+$/

t.test('every request is logged under a fresh id unless a trusted proxy gave one: by default nobody is trusted', async (t) => {
  const { app, logs } = await build(t)
  const idOf = loggedId(app, logs)
  const ids = [await idOf({}), await idOf({}), await idOf({ 'x-request-id': 'forged-by-a-client' }), await idOf({ traceparent: TRACEPARENT })]
  t.ok(ids.every((id) => typeof id === 'string' && FRESH.test(id) && id !== 'forged-by-a-client' && id !== TRACE_ID), `generated ids: ${ids.join(', ')}`)
  t.equal(new Set(ids).size, ids.length, 'each one different')
})

t.test('behind a trusted proxy, its trace id or request id becomes the log id, so logs join up', async (t) => {
  // inject() comes from 127.0.0.1, a proxy the operator named.
  const { app, logs } = await build(t, { env: { TRUST_PROXY: 'loopback' } })
  const idOf = loggedId(app, logs)
  t.equal(await idOf({ traceparent: TRACEPARENT, 'x-request-id': 'lb-7f3a.42' }), TRACE_ID, 'the W3C trace id first')
  t.equal(await idOf({ 'x-request-id': 'lb-7f3a.42' }), 'lb-7f3a.42', 'else the proxy\'s request id')
  const fresh = [await idOf({ traceparent: 'not-a-traceparent' }), await idOf({ 'x-request-id': 'has spaces; and more' }), await idOf({ 'x-request-id': 'x'.repeat(129) })]
  t.ok(fresh.every((id) => typeof id === 'string' && FRESH.test(id)), `malformed ids are ignored: ${fresh.join(', ')}`)
  t.equal(new Set(fresh).size, fresh.length)
  const response = await app.inject({ url: '/', headers: { traceparent: '00-zz' } })
  t.equal(response.statusCode, 200, 'a malformed traceparent is never an error')
})
