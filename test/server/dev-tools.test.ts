import { EventEmitter } from 'node:events'
import { createElement } from 'react'
import t, { type Test } from 'tap'
import { devTools, DEV_EVENTS_PATH, type Channel } from '../../src/server/dev/dev-tools.js'
import { screen } from '../helpers/screens.js'
import { build, inlineScripts, type BuildOptions } from '../helpers/app.js'

/**
 * What `npm run dev` adds to the server (src/server/dev/): the event stream
 * that reloads open pages and carries build errors, the script every
 * document gets for it, a failure's details on its error page, and one log
 * line per request. test/build/dev-loop.test.ts runs the whole loop.
 */

const HTML = { accept: 'text/html' }

/** The app with development tools, talking to a stand-in for build/dev.mjs's IPC channel. */
async function buildDev (t: Test, options: BuildOptions = {}) {
  const channel = Object.assign(new EventEmitter(), { off: EventEmitter.prototype.off }) as EventEmitter & Channel
  let watcherGone = 0
  const tools = devTools({ channel, onWatcherGone: () => { watcherGone++ } })
  const built = await build(t, { ...options, devTools: tools })
  return { ...built, channel, watcherGone: () => watcherGone }
}

interface DevData {
  build: string
  events: string
  failure: { title: string, entries: Array<{ label: string, text: string }> } | null
}

/** The development script's data, read from the nonced bootstrap script as the browser runs it. */
function devData (html: string): DevData {
  const script = inlineScripts(html).find(({ body }) => body.includes('new EventSource'))
  if (!script) throw new Error('the document has no development script')
  const json = /\}\)\((\{[\s\S]*\})\)$/.exec(script.body)?.[1]
  if (!json) throw new Error('the development script has no data')
  return JSON.parse(json)
}

/** The events an event stream sent until the app closed it. */
function events (body: string): Array<{ build: string, overlay: DevData['failure'] }> {
  return body.split('\n\n').filter(Boolean).map((event) => {
    if (!event.startsWith('data: ')) throw new Error(`not a data event: ${event}`)
    return JSON.parse(event.slice('data: '.length))
  })
}

const failing = {
  screens: {
    throwing: screen({ path: '/throwing', component: function BrokenWidget () { throw new Error('the widget broke') } }),
    failing: screen({ path: '/failing', component: () => createElement('h1', null, 'never') }, { loader: () => { throw new TypeError('the database is down') } })
  },
  allowErrorLogs: true
}

t.test('every document carries the development script, under the page’s CSP nonce', async (t) => {
  const { app } = await buildDev(t)
  const home = await app.inject({ url: '/', headers: HTML })
  const missing = await app.inject({ url: '/no-such-page', headers: HTML })
  const nonce = /'nonce-([^']+)'/.exec(String(home.headers['content-security-policy']))?.[1]
  const script = inlineScripts(home.body).find(({ body }) => body.includes('new EventSource'))
  t.equal(script?.nonce, nonce, 'the script runs under the page’s nonce')
  t.match(devData(home.body), { events: DEV_EVENTS_PATH, failure: null })
  t.equal(devData(missing.body).build, devData(home.body).build, 'one build id per server')
  // From the render cache, the same script.
  t.equal(devData((await app.inject({ url: '/', headers: HTML })).body).build, devData(home.body).build)
})

t.test('the event stream says which build is served, and the errors of a failed one until a build succeeds', async (t) => {
  const { app, channel } = await buildDev(t)
  const { build } = devData((await app.inject({ url: '/', headers: HTML })).body)
  const stream = app.inject({ url: DEV_EVENTS_PATH, headers: { accept: 'text/event-stream' } })
  await new Promise((resolve) => setTimeout(resolve, 50))
  channel.emit('message', { type: 'build-status', errors: [{ file: 'src/screens/home.tsx', line: 4, column: 12, lineText: '      <h1>Agent Stack</h2>', message: 'Unexpected closing "h2" tag does not match opening "h1" tag' }] })
  channel.emit('message', { type: 'something else' })
  channel.emit('message', { type: 'build-status', errors: 'not a list' })
  channel.emit('message', { type: 'build-status', errors: [] })
  await app.close()
  const response = await stream
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/event-stream/)
  t.equal(response.headers['content-encoding'], undefined, 'never compressed: that would hold events back')
  t.equal(response.headers['cache-control'], 'no-store')
  t.same(events(response.body), [
    { build, overlay: null },
    {
      build,
      overlay: {
        title: 'The build failed: the last good build is still served',
        entries: [{ label: 'src/screens/home.tsx:4:12', text: 'Unexpected closing "h2" tag does not match opening "h1" tag\n\n4 |       <h1>Agent Stack</h2>' }]
      }
    },
    { build, overlay: null }
  ], 'the state on connecting, the failure, its end; messages of another shape are ignored')
})

t.test('a page that connects while the build is failing sees the failure at once', async (t) => {
  const { app, channel } = await buildDev(t)
  channel.emit('message', { type: 'build-status', errors: [{ file: null, line: null, column: null, lineText: null, message: 'Could not resolve "./gone.js"' }] })
  const stream = app.inject({ url: DEV_EVENTS_PATH })
  await new Promise((resolve) => setTimeout(resolve, 50))
  await app.close()
  t.same(events((await stream).body).map(({ overlay }) => overlay?.entries), [[{ label: 'build', text: 'Could not resolve "./gone.js"' }]])
})

t.test('a render error’s page carries its message and component stack, in source files', async (t) => {
  const { app, logs } = await buildDev(t, failing)
  const response = await app.inject({ url: '/throwing', headers: HTML })
  t.equal(response.statusCode, 500)
  t.match(response.body, '<h1>Something went wrong</h1>', 'the error page, as in production')
  const { failure } = devData(response.body)
  t.equal(failure?.title, 'The page failed to render')
  const entry = (label: string) => failure?.entries.find((candidate) => candidate.label === label)?.text ?? ''
  t.equal(entry('Error'), 'Error: the widget broke')
  t.match(entry('Component stack'), /^ {4}at BrokenWidget \(test\/server\/dev-tools\.test\.ts:\d+:\d+\)\n {4}at Outlet \(src\/ui\/app\.tsx:\d+:\d+\)/, 'the component that threw and its parents, where they are written')
  t.match(entry('Stack'), /^Error: the widget broke\n {4}at BrokenWidget \(test\/server\/dev-tools\.test\.ts:\d+:\d+\)/)
  t.notOk(`${entry('Component stack')}${entry('Stack')}`.includes(process.cwd()), 'paths are relative to the project')
  t.notOk(entry('Stack').includes('node_modules'), 'frames inside packages are left out')
  t.ok(logs.some((line) => line.msg === 'the document shell failed to render'), 'and the error is logged as always')
  // Rendered for this failure alone: the next visit renders (and fails) again.
  const again = await app.inject({ url: '/throwing', headers: HTML })
  t.equal(devData(again.body).failure?.entries[0]?.text, 'Error: the widget broke')
})

t.test('a loader’s error page carries its message and stack; a client error’s page carries none', async (t) => {
  const { app } = await buildDev(t, failing)
  const failed = await app.inject({ url: '/failing', headers: HTML })
  t.equal(failed.statusCode, 500)
  const { failure } = devData(failed.body)
  t.equal(failure?.title, 'The request failed')
  t.same(failure?.entries.map(({ label }) => label), ['Error', 'Stack'])
  t.equal(failure?.entries[0]?.text, 'TypeError: the database is down')
  t.match(failure?.entries[1]?.text, /at .*\(test\/server\/dev-tools\.test\.ts:\d+:\d+\)/)
  const missing = await app.inject({ url: '/no-such-page', headers: HTML })
  t.equal(devData(missing.body).failure, null)
})

t.test('one log line per request, none for assets that were served', async (t) => {
  const { app, logs } = await buildDev(t)
  const requestLines = () => logs.filter((line) => line.level === 30).map((line) => line.msg)
  await app.inject({ url: '/', headers: HTML })
  await app.inject({ url: '/favicon.ico' })
  await app.inject({ url: '/no-such-page', headers: HTML })
  await app.inject({ url: '/assets/gone-ABCDEF12.js' })
  await app.inject({ url: '/resources/healthcheck' })
  const lines = requestLines()
  t.equal(lines.length, 4, lines.join('\n'))
  t.match(lines[0], /^GET \/ 200 \d+ ms$/)
  t.match(lines[1], /^GET \/no-such-page 404 \d+ ms$/)
  t.match(lines[2], /^GET \/assets\/gone-ABCDEF12\.js 404 \d+ ms$/, 'an asset that is missing is worth a line')
  t.match(lines[3], /^GET \/resources\/healthcheck 200 \d+ ms$/)
  t.notOk(logs.some((line) => line.msg === 'incoming request' || line.msg === 'request completed'), 'not Fastify’s two lines')
})

t.test('when build/dev.mjs goes away, the server is told to stop', async (t) => {
  const { channel, watcherGone } = await buildDev(t)
  channel.emit('disconnect')
  t.equal(watcherGone(), 1)
})

t.test('closing the app ends open event streams at once', async (t) => {
  const { app, channel } = await buildDev(t)
  const streams = [app.inject({ url: DEV_EVENTS_PATH }), app.inject({ url: DEV_EVENTS_PATH })]
  await new Promise((resolve) => setTimeout(resolve, 50))
  await app.close()
  t.same((await Promise.all(streams)).map((response) => response.statusCode), [200, 200])
  t.equal(channel.listenerCount('message') + channel.listenerCount('disconnect'), 0, 'and stops listening to build/dev.mjs')
})

t.test('without development tools (any other build): no event stream, no script, no failure details', async (t) => {
  const { app } = await build(t, { ...failing, env: { NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32), HONEYPOT_SECRET: 'y'.repeat(32) } })
  t.equal((await app.inject({ url: DEV_EVENTS_PATH, headers: HTML })).statusCode, 404)
  for (const url of ['/', '/throwing', '/failing']) {
    const response = await app.inject({ url, headers: HTML })
    t.notOk(response.body.includes('EventSource'), `${url}: no development script`)
    t.notOk(/broke|database is down|dev-tools\.test|at \w+ \(/.test(response.body), `${url}: nothing of a failure`)
  }
})
