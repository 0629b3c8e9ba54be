// The built server with two pages of the bench's own, passed through the app's
// test options (serve() takes the same pages and loaders a test does), so the
// bench measures streaming without a page in src/ for it. Both show the same
// text once data that takes DATA_MS has come:
//   /bench/streamed  the shell at once, the data's part in a Suspense boundary
//                    that waits on a promise of DATA_MS, streamed when it settles;
//   /bench/whole     its loader waits DATA_MS, then the page renders whole.
// Until pages can defer their loader data, a component that throws the
// request's promise is what suspends (React's contract for Suspense).
//
// The components are made with the project's React, while the server bundle
// holds its own copy: elements and Suspense are plain objects and registered
// symbols, the same in both, and no hook is used.
import { createElement, Suspense } from 'react'
import Module from 'node:module'
import { fileURLToPath } from 'node:url'

const DATA_MS = Number(process.env.BENCH_DATA_MS ?? 1000)
const bundle = fileURLToPath(new URL('../dist/server/server.js', import.meta.url))
const { serve } = Module.createRequire(bundle)(bundle)

/** Each request's data promise, by its page data (one object per request): a retry of the boundary finds the same one. */
const waits = new WeakMap()
function dataFor (data) {
  let wait = waits.get(data)
  if (!wait) {
    wait = { settled: false }
    wait.promise = new Promise((resolve) => setTimeout(resolve, DATA_MS)).then(() => { wait.settled = true })
    waits.set(data, wait)
  }
  return wait
}

function Slow ({ data }) {
  if (data.ready) return createElement('p', null, `The data of request ${data.request}, after ${DATA_MS} ms.`)
  const wait = dataFor(data)
  if (!wait.settled) throw wait.promise
  return createElement('p', null, `The data of request ${data.request}, after ${DATA_MS} ms.`)
}

function BenchPage ({ data }) {
  return createElement('main', { className: 'home' },
    createElement('h1', null, 'Agent Stack'),
    createElement(Suspense, { fallback: createElement('p', null, 'Loading…') }, createElement(Slow, { data })))
}

// Rendered on every request, as data that takes a second would be.
const page = (id) => ({ id, path: `/bench/${id}`, cache: false, meta: { title: 'Agent Stack' }, load: async () => BenchPage })
let requests = 0
const loaders = new Map([
  ['streamed', () => ({ request: ++requests, ready: false })],
  ['whole', () => new Promise((resolve) => setTimeout(() => resolve({ request: ++requests, ready: true }), DATA_MS))]
])

await serve({ pages: [page('streamed'), page('whole')], loaders })
