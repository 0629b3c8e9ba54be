import type { FastifyRequest } from 'fastify'
import t from 'tap'
import { wantsJson } from '../../src/server/http/negotiation.js'
import { build } from '../helpers/app.js'

const asking = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as FastifyRequest

t.test('one rule: JSON only for a client whose Accept prefers it to HTML', async (t) => {
  const cases: Array<[string | undefined, boolean]> = [
    [undefined, false],
    ['*/*', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['application/json', true],
    ['application/json, text/plain, */*', true],
    ['application/*', true],
    ['text/html, application/json', false],
    ['text/html;q=0.5, application/json', true],
    ['application/json;q=0.1, text/html', false],
    ['text/plain', false],
    ['application/xml', false],
    // A JSON client's Accept as some libraries write it: it got the HTML page.
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/json; charset=iso-8859-1', false]
  ]
  for (const [accept, json] of cases) t.equal(wantsJson(asking(accept)), json, `Accept: ${accept ?? '(none)'}`)
  for (const [accept, json] of cases) t.equal(wantsJson(asking(accept)), json, `the same answer the second time: ${accept ?? '(none)'}`)
})

t.test('an Accept longer than any browser sends is read all the same', async (t) => {
  const padding = Array.from({ length: 60 }, (_, index) => `application/x-padding-${index};q=0.1`).join(', ')
  t.equal(wantsJson(asking(`${padding}, text/html;q=0.5, application/json`)), true)
  t.equal(wantsJson(asking(`${padding}, text/html, application/json;q=0.5`)), false)
})

t.test('every answer negotiated by Accept says so, and no shared cache stores it', async (t) => {
  const { app } = await build(t)
  app.get('/explodes', async () => { throw new Error('boom') })
  const requests = [
    { url: '/no/such/page' },
    { url: '/', method: 'POST' as const },
    { url: '/resources/theme-switch', method: 'POST' as const, headers: { 'content-type': 'application/json' }, payload: '{"theme":"purple"}' },
    { url: '/resources/theme-switch', method: 'POST' as const, headers: { 'content-type': 'application/json' }, payload: '{"theme":"dark"}' }
  ]
  for (const request of requests) {
    for (const accept of ['text/html', 'application/json']) {
      const response = await app.inject({ ...request, headers: { ...request.headers, accept } })
      const name = `${request.method ?? 'GET'} ${request.url} ${request.payload ?? ''} as ${accept} (${response.statusCode})`
      t.match(response.headers.vary, /(^|, )Accept(,|$)/, `${name}: Vary names Accept`)
      t.match(response.headers['cache-control'], /^(private, no-cache|no-store)$/, `${name}: no shared cache keeps it`)
    }
  }
})

t.test('an address no route takes is answered before its body is read', async (t) => {
  const { app } = await build(t)
  const bodies = [
    { 'content-type': 'application/json', payload: '{"broken": ' },
    { 'content-type': 'application/json', payload: JSON.stringify({ text: 'x'.repeat(70 * 1024) }) },
    { 'content-type': 'text/csv', payload: 'a,b' }
  ]
  for (const { payload, ...headers } of bodies) {
    const unknown = await app.inject({ method: 'POST', url: '/no/such/form', headers: { ...headers, accept: 'application/json' }, payload })
    t.equal(unknown.statusCode, 404, `${headers['content-type']} (${payload.length} bytes) at an unknown address: 404, not a complaint about the body`)
    const wrongMethod = await app.inject({ method: 'PUT', url: '/', headers: { ...headers, accept: 'application/json' }, payload })
    t.equal(wrongMethod.statusCode, 405, `${headers['content-type']} (${payload.length} bytes) with a method the address does not take: 405`)
    t.equal(wrongMethod.headers.allow, 'GET, HEAD')
  }
})
