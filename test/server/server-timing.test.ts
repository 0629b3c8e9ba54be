import { createElement } from 'react'
import t from 'tap'
import { serverTiming } from '../../src/server/plugins/app/document-timing.js'
import { THEME_SWITCH_PATH } from '../../src/shared/theme.js'
import { screen } from '../helpers/screens.js'
import { build, postForm } from '../helpers/app.js'

const HTML = { accept: 'text/html' }
const TIMING = /^render;dur=\d+\.\d, cache;desc=(hit|miss|bypass)$/

t.test('Server-Timing reads render;dur=<ms to a tenth>, cache;desc=<outcome>', async (t) => {
  t.equal(serverTiming(0.4321, 'hit'), 'render;dur=0.4, cache;desc=hit')
  t.equal(serverTiming(12, 'miss'), 'render;dur=12.0, cache;desc=miss')
  t.equal(serverTiming(3.96, 'bypass'), 'render;dur=4.0, cache;desc=bypass')
})

t.test('every document says how long it took to render and whether the render cache served it', async (t) => {
  const live = screen({ path: '/live', component: () => createElement('p', null, 'live'), cache: false })
  const { app } = await build(t, { screens: { live } })
  const outcome = async (url: string) => {
    const response = await app.inject({ url, headers: HTML })
    const header = String(response.headers['server-timing'])
    t.match(header, TIMING, `${url}: ${header}`)
    return TIMING.exec(header)?.[1]
  }
  t.equal(await outcome('/'), 'miss', 'the first visit renders')
  t.equal(await outcome('/'), 'miss', 'so does the second, whose document is kept')
  t.equal(await outcome('/'), 'hit', 'the next is served from the cache')
  t.equal(await outcome('/live'), 'bypass', 'a cache: false page never is')
  t.equal(await outcome('/nowhere'), 'miss', 'the not-found page is a document too')
  const head = await app.inject({ method: 'HEAD', url: '/', headers: HTML })
  t.match(String(head.headers['server-timing']), TIMING, 'and so is a HEAD of one')
})

t.test('a document whose render failed still says so, as the 500 page it became', async (t) => {
  const broken = screen({ path: '/broken', component: (): never => { throw new Error('broken') } })
  const { app } = await build(t, { screens: { broken }, allowErrorLogs: true })
  const response = await app.inject({ url: '/broken', headers: HTML })
  t.equal(response.statusCode, 500)
  t.match(String(response.headers['server-timing']), TIMING)
})

t.test('redirects, JSON, probes and static files carry no Server-Timing', async (t) => {
  const { app } = await build(t)
  const responses = {
    'a form switching the theme (303)': await postForm(app, THEME_SWITCH_PATH, { theme: 'dark' }),
    'a script switching the theme (JSON)': await app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers: { accept: 'application/json' }, payload: { theme: 'dark' } }),
    'a JSON 404': await app.inject({ url: '/nowhere', headers: { accept: 'application/json' } }),
    'a JSON 400': await app.inject({ method: 'POST', url: THEME_SWITCH_PATH, headers: { accept: 'application/json' }, payload: { theme: 'purple' } }),
    'the health check': await app.inject({ url: '/resources/healthcheck' }),
    'the readiness probe': await app.inject({ url: '/resources/readiness' }),
    'a static file': await app.inject({ url: '/favicon.ico' })
  }
  for (const [what, response] of Object.entries(responses)) {
    t.ok(response.statusCode < 500, `${what}: ${response.statusCode}`)
    t.equal(response.headers['server-timing'], undefined, `${what}: none`)
  }
})
