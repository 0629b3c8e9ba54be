import t from 'tap'
import { defineLoader } from '../../src/server/screens/index.js'
import { defineScreen } from '../../src/ui/define-screen.js'
import { build } from '../helpers/app.js'
import { screen } from '../helpers/screens.js'

// A loader's redirect depends on the visitor as its page does (signed in or not). Without a Cache-Control a 301 or 308
// is heuristically cacheable (RFC 9110 §15.1, RFC 9111 §4.2.2): the browser would keep sending a visitor who has since
// signed in to the sign-in page.

const HTML = { accept: 'text/html' }
const STATUSES = [301, 302, 303, 307, 308] as const

/** A private page whose loader sends a visitor without a session to sign in, with `?status=`; `?private` says no-store first. */
const account = screen(defineScreen({ path: '/account', component: () => null }), {
  loader: defineLoader<null>(({ reply, url }) => {
    if (url.searchParams.has('private')) reply.header('Cache-Control', 'no-store')
    return reply.redirect('/sign-in', Number(url.searchParams.get('status')) as typeof STATUSES[number])
  })
})

t.test('a loader\'s redirect, whatever its status, carries the documents\' Cache-Control and Vary', async (t) => {
  const { app } = await build(t, { screens: { account } })
  const page = await app.inject({ url: '/', headers: HTML })
  t.equal(page.headers['cache-control'], 'private, no-cache', 'a document is kept by the browser only until it asks again')
  for (const status of STATUSES) {
    const redirect = await app.inject({ url: `/account?status=${status}`, headers: HTML })
    t.equal(redirect.statusCode, status)
    t.equal(redirect.headers.location, '/sign-in')
    t.equal(redirect.headers['cache-control'], page.headers['cache-control'], `${status}: as a document`)
    t.equal(redirect.headers.vary, page.headers.vary, `${status}: varies as a document, by Cookie among the rest`)
  }
})

t.test('a loader that said no-store keeps it on its redirect', async (t) => {
  const { app } = await build(t, { screens: { account } })
  for (const status of STATUSES) {
    const redirect = await app.inject({ url: `/account?status=${status}&private`, headers: HTML })
    t.equal(redirect.statusCode, status)
    t.equal(redirect.headers['cache-control'], 'no-store', `${status}: the loader's word stands`)
    t.match(redirect.headers.vary, /\bCookie\b/)
  }
})
