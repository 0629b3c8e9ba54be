import type { LightMyRequestResponse } from 'fastify'
import { createElement, Suspense } from 'react'
import t, { type Test } from 'tap'
import { screen } from '../helpers/screens.js'
import { build, inlineScripts, pageData, type TestApp } from '../helpers/app.js'

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }
const JSON_CLIENT = { accept: 'application/json' }
const BOT = { ...HTML, 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }

/** Text only the failure knows: it must reach the log and never the visitor. */
const DETAIL = 'db password rejected for user admin at 10.0.0.7'

function Thrower (): never {
  throw new Error(DETAIL)
}

const neverShown = () => createElement('p', null, 'never shown')

const failingScreens = {
  'loader-fails': screen({ path: '/loader-fails', component: neverShown }, { loader: () => { throw new Error(DETAIL) } }),
  'async-loader-fails': screen({ path: '/async-loader-fails', component: neverShown }, { loader: async () => { throw new Error(DETAIL) } }),
  'shell-fails': screen({ path: '/shell-fails', component: Thrower }),
  'boundary-fails': screen({
    path: '/boundary-fails',
    component: () => createElement('main', null, createElement(Suspense, { fallback: createElement('p', null, 'Loading…') }, createElement(Thrower)))
  })
}

/** Asserts a response is the 500 error document, with no trace of the failure. */
function assertErrorDocument (t: Test, response: LightMyRequestResponse) {
  t.equal(response.statusCode, 500)
  t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  t.match(response.body, /^<!DOCTYPE html><html lang="en"/i)
  t.match(response.body, /<title>Error \| Agent Stack<\/title>/)
  t.match(response.body, /<h1>Something went wrong<\/h1>/)
  t.notOk(response.body.includes(DETAIL), 'no error message in the body')
  t.notMatch(response.body, /\bat [\w.<>]+ \(|\.tsx?:\d+|Error:/, 'no stack trace in the body')
  const nonce = /'nonce-([^']+)'/.exec(String(response.headers['content-security-policy']))?.[1]
  const envScript = inlineScripts(response.body).find(({ body }) => body.includes('window.ENV='))
  t.ok(envScript, 'window.ENV is set on error pages too')
  t.equal(envScript?.nonce, nonce, 'by a script carrying the CSP nonce')
}

/** The error logs of one request, named by its X-Request-Id: inject() comes from 127.0.0.1, trusted in these apps. */
function errorLogs (logs: TestApp['logs'], requestId: string) {
  return logs.filter((entry) => entry.level >= 50 && entry.requestId === requestId)
}

t.test('a page whose loader throws gets the 500 error document; the error is logged with the request id', async (t) => {
  const { app, logs } = await build(t, { screens: failingScreens, allowErrorLogs: true, env: { TRUST_PROXY: 'loopback' } })
  for (const path of ['/loader-fails', '/async-loader-fails']) {
    const requestId = `test${path.replace(/\//g, '-')}`
    const response = await app.inject({ url: path, headers: { ...HTML, 'x-request-id': requestId } })
    assertErrorDocument(t, response)
    const logged = errorLogs(logs, requestId)
    t.equal(logged.length, 1, `${path}: one error log for the request`)
    const err = logged[0]?.err as { message?: string, stack?: string } | undefined
    t.equal(err?.message, DETAIL, `${path}: the log has the message`)
    t.match(err?.stack ?? '', /errors\.test\.ts/, `${path}: and the stack`)
  }
})

t.test('a component that throws while rendering the shell gets the 500 error document', async (t) => {
  const { app, logs } = await build(t, { screens: failingScreens, allowErrorLogs: true, env: { TRUST_PROXY: 'loopback' } })
  for (const headers of [HTML, BOT]) {
    const requestId = `shell-${headers === BOT ? 'bot' : 'browser'}`
    const response = await app.inject({ url: '/shell-fails', headers: { ...headers, 'x-request-id': requestId } })
    assertErrorDocument(t, response)
    t.ok(errorLogs(logs, requestId).some((entry) => (entry.err as { message?: string } | undefined)?.message === DETAIL), 'logged with the request id')
  }
})

t.test('an error inside a Suspense boundary never leaves a bot with a 200', async (t) => {
  // Only statuses and logs here: React's development build (NODE_ENV is not "production" in tests)
  // writes a boundary's error message into the HTML for the developer; its production build does not.
  const { app, logs } = await build(t, { screens: failingScreens, allowErrorLogs: true, env: { TRUST_PROXY: 'loopback' } })
  const bot = await app.inject({ url: '/boundary-fails', headers: { ...BOT, 'x-request-id': 'boundary-bot' } })
  t.equal(bot.statusCode, 500, 'a bot waits for the whole page, so the error can still set the status')
  t.ok(errorLogs(logs, 'boundary-bot').length > 0, 'logged with the request id')

  const browser = await app.inject({ url: '/boundary-fails', headers: { ...HTML, 'x-request-id': 'boundary-browser' } })
  t.match(browser.body, /<main><!--\$!-->[\s\S]*<p>Loading…<\/p>/, 'a browser gets the page with the boundary\'s fallback, to be rendered on the client')
  t.ok(errorLogs(logs, 'boundary-browser').length > 0, 'logged with the request id')
})

t.test('an unexpected error in a route is JSON for a client that asks for it, and the error document for everyone else', async (t) => {
  const { app, logs } = await build(t, { allowErrorLogs: true, env: { TRUST_PROXY: 'loopback' } })
  app.get('/explodes', async () => { throw new Error(DETAIL) })

  assertErrorDocument(t, await app.inject({ url: '/explodes', headers: HTML }))
  assertErrorDocument(t, await app.inject({ url: '/explodes' }))
  const response = await app.inject({ url: '/explodes', headers: { ...JSON_CLIENT, 'x-request-id': 'json-client' } })
  t.equal(response.statusCode, 500)
  t.match(response.headers['content-type'], /^application\/json/)
  t.same(response.json(), { statusCode: 500, error: 'Internal Server Error', message: 'Something went wrong on our side. Please try again.' })
  t.ok(errorLogs(logs, 'json-client').some((entry) => (entry.err as { message?: string } | undefined)?.message === DETAIL), 'logged with the request id')
})

t.test("a client's malformed request to a POST route is a 4xx with a message it can act on, never a 5xx", async (t) => {
  // No error log is allowed here: a client's mistake is not the server's error.
  const { app } = await build(t)
  app.post('/echo', async (request) => ({ received: request.body }))

  const cases: Array<{ name: string, contentType: string, payload: string, status: number, title: string, message: string }> = [
    { name: 'a body over the limit', contentType: 'application/json', payload: JSON.stringify({ text: 'x'.repeat(70 * 1024) }), status: 413, title: 'Request too large', message: 'The request body is too large.' },
    { name: 'a form over the limit', contentType: 'application/x-www-form-urlencoded', payload: `text=${'x'.repeat(70 * 1024)}`, status: 413, title: 'Request too large', message: 'The request body is too large.' },
    { name: 'malformed JSON', contentType: 'application/json', payload: '{"text": ', status: 400, title: 'Bad request', message: 'The request body is not valid JSON.' },
    { name: 'an empty JSON body', contentType: 'application/json', payload: '', status: 400, title: 'Bad request', message: 'The request body is empty; JSON was expected.' },
    { name: 'an unsupported media type', contentType: 'text/csv', payload: 'a,b\n1,2', status: 415, title: 'Unsupported content type', message: 'This content type is not accepted here. Send a form or JSON.' }
  ]
  for (const { name, contentType, payload, status, title, message } of cases) {
    const json = await app.inject({ method: 'POST', url: '/echo', headers: { ...JSON_CLIENT, 'content-type': contentType }, payload })
    t.equal(json.statusCode, status, `${name}: ${status} for a JSON client`)
    t.equal(json.json().message, message, `${name}: says what is wrong`)
    t.equal(json.json().statusCode, status)

    const html = await app.inject({ method: 'POST', url: '/echo', headers: { ...HTML, 'content-type': contentType }, payload })
    t.equal(html.statusCode, status, `${name}: ${status} for a browser`)
    t.equal(html.headers['content-type'], 'text/html; charset=utf-8')
    t.match(html.body, `<title>${title} | Agent Stack</title>`, `${name}: the client-error document, titled for its status`)
    t.match(html.body, `<p role="alert">${message}</p>`, `${name}: with the message`)
  }

  const ok = await app.inject({ method: 'POST', url: '/echo', headers: { ...JSON_CLIENT, 'content-type': 'application/json' }, payload: '{"text":"hi"}' })
  t.same(ok.json(), { received: { text: 'hi' } }, 'a well-formed request still works')
})

t.test('the error document carries the address as asked, whatever characters it holds', async (t) => {
  // `$&` and `` $` `` are replacement patterns to String.prototype.replace: request text must never be one.
  const { app } = await build(t, { screens: failingScreens, allowErrorLogs: true, env: { TRUST_PROXY: 'loopback' } })
  const url = '/shell-fails?q=$&$`'
  const response = await app.inject({ url, headers: HTML })
  assertErrorDocument(t, response)
  t.equal(response.body.match(/<!DOCTYPE html>/gi)?.length, 1, 'one document, not one spliced into another')
  t.equal(pageData(response.body).requestInfo.path, url, 'the page data holds the address unchanged, so hydration sees what the server rendered')
})
