import { createElement } from 'react'
import t, { type Test } from 'tap'
import { build, pageData, type TestApp } from '../helpers/app.js'
import { screen } from '../helpers/screens.js'

// A loader's data is serialized into the page and hydrated in the browser: what JSON cannot carry faithfully is the
// app's bug, answered with the 500 document and logged once, naming the screen. Outside production the data is also
// walked for what JSON would change without failing; production pays only for JSON's own failures.

const HTML = { accept: 'text/html' }

class Money {
  constructor (readonly cents: number) {}
}

const circular: Record<string, unknown> = { name: 'loop' }
circular.self = circular

/** The loader's data, and what the log must say of it. */
const UNFAITHFUL: Array<[what: string, data: () => unknown, says: string]> = [
  ['a Date', () => ({ when: 'then', created: new Date(0) }), 'data.created is a Date, which arrives as a string'],
  ['a Map', () => ({ counts: new Map([['a', 1]]) }), 'data.counts is a Map, which arrives as {}'],
  ['a Set in a list', () => ({ groups: [{ tags: new Set(['a']) }] }), 'data.groups[0].tags is a Set, which arrives as {}'],
  ['a class instance', () => ({ price: new Money(100) }), 'data.price is an instance of Money'],
  ['a promise below the top level', () => ({ extra: { slow: Promise.resolve('later') } }), 'data.extra.slow is a promise below the top level'],
  ['a function', () => ({ format: () => 'x' }), 'data.format is a function, which JSON drops'],
  ['a number JSON writes as null', () => ({ ratio: Number.NaN }), 'data.ratio is NaN, which arrives as null'],
  ['a BigInt', () => ({ id: 1n }), 'data.id is a bigint, which JSON cannot carry'],
  ['a cycle', () => ({ loop: circular }), 'data.loop.self refers back to an object that holds it']
]

function loaderScreens (data: () => unknown) {
  const shown = () => createElement('main', null, 'shown')
  return {
    // A page kept by the render cache is serialized first for its key; one that is not, for its script.
    cached: screen({ path: '/cached', component: shown }, { loader: data }),
    uncached: screen({ path: '/uncached', component: shown, cache: false }, { loader: data })
  }
}

/** Asserts the visit got the 500 document and its request one error log, naming the screen and the rule. */
async function assertRefused (t: Test, { app, logs }: TestApp, path: string, says: string) {
  const requestId = `refused${path.replace(/\W/g, '-')}-${logs.length}`
  const response = await app.inject({ url: path, headers: { ...HTML, 'x-request-id': requestId } })
  t.equal(response.statusCode, 500, `${path}: the 500 document`)
  t.match(response.body, /<h1>Something went wrong<\/h1>/)
  const logged = logs.filter((entry) => entry.level >= 50 && entry.requestId === requestId)
  t.equal(logged.length, 1, `${path}: one error log, with the request id`)
  const message = (logged[0]?.err as { message?: string } | undefined)?.message ?? ''
  t.match(message, `the screen "${path.slice(1)}" cannot be sent to the browser: its loader's data must survive JSON`, `${path}: the log names the screen and the rule`)
  t.match(message, says, `${path}: and says what`)
}

t.test('outside production, loader data JSON would change or cannot carry is a 500 naming the screen and the value', async (t) => {
  for (const [what, data, says] of UNFAITHFUL) {
    t.test(what, async (t) => {
      const app = await build(t, { screens: loaderScreens(data), allowErrorLogs: true, env: { TRUST_PROXY: 'loopback' } })
      for (const path of ['/cached', '/uncached']) await assertRefused(t, app, path, says)
    })
  }
})

t.test('in production, a BigInt or a cycle is a 500 naming the screen; what JSON changes without failing is not looked for', async (t) => {
  const production = { NODE_ENV: 'production', TRUST_PROXY: 'loopback' }
  for (const [what, data] of [['a BigInt', () => ({ id: 1n })], ['a cycle', () => ({ loop: circular })]] as const) {
    t.test(what, async (t) => {
      const app = await build(t, { screens: loaderScreens(data), allowErrorLogs: true, env: production })
      for (const path of ['/cached', '/uncached']) await assertRefused(t, app, path, 'serializing it failed: ')
    })
  }
  const { app } = await build(t, { screens: loaderScreens(() => ({ created: new Date(0) })), env: production })
  const response = await app.inject({ url: '/uncached', headers: HTML })
  t.equal(response.statusCode, 200, 'a Date is sent as JSON writes it: the types refuse it (src/shared/survives-json.ts)')
  t.same(pageData(response.body).page.data, { created: '1970-01-01T00:00:00.000Z' })
})

t.test('data that survives JSON, and top-level promises, are rendered as before', async (t) => {
  const data = () => ({ title: 'Plain', items: [{ name: 'a', tags: ['x'] }, null], bare: Object.create(null) as object, missing: undefined, forecast: Promise.resolve('sunny') })
  const { app } = await build(t, { screens: loaderScreens(data) })
  for (const path of ['/cached', '/uncached']) {
    const response = await app.inject({ url: path, headers: HTML })
    t.equal(response.statusCode, 200, path)
    t.same(pageData(response.body).page.data, { title: 'Plain', items: [{ name: 'a', tags: ['x'] }, null], bare: {} })
  }
})
