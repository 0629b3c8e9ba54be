import t from 'tap'
import { withoutTrailingSlash } from '../../src/server/http/trailing-slash.js'
import { createElement } from 'react'
import { build } from '../helpers/app.js'
import { screen } from '../helpers/screens.js'

const HTML = { accept: 'text/html' }

t.test('the address without its trailing slashes keeps its query, and never leaves the site', async (t) => {
  t.equal(withoutTrailingSlash('/examples/'), '/examples')
  t.equal(withoutTrailingSlash('/examples/form//?from=mail&x=%2F'), '/examples/form?from=mail&x=%2F')
  t.equal(withoutTrailingSlash('/examples?next=/a/'), null, 'a slash in the query is not the path\'s')
  t.equal(withoutTrailingSlash('/examples'), null, 'nothing to drop')
  t.equal(withoutTrailingSlash('/'), null, 'the home page keeps its one slash')
  t.equal(withoutTrailingSlash('//'), null)
  t.equal(withoutTrailingSlash('///?next=/'), null, 'slashes alone, query or not, are the home page')
  t.equal(withoutTrailingSlash('//evil.example/'), null, 'never protocol-relative')
  t.equal(withoutTrailingSlash('/\\evil.example/'), null, 'nor what a browser reads as such')
})

t.test('a page asked for with a slash too many is sent to its address', async (t) => {
  // A screen of the test's own: the examples' addresses go when the examples are removed (docs/examples.md).
  const { app } = await build(t, { screens: { notesForm: screen({ path: '/notes/form', component: () => createElement('p', null, 'notes') }) } })
  for (const method of ['GET', 'HEAD'] as const) {
    const response = await app.inject({ method, url: '/notes/form/?from=mail', headers: HTML })
    t.equal(response.statusCode, 301, method)
    t.equal(response.headers.location, '/notes/form?from=mail')
    t.equal(response.headers['cache-control'], 'public, max-age=3600', 'kept for an hour, in case the address comes to exist')
  }
  t.equal((await app.inject({ url: '/notes/form', headers: HTML })).statusCode, 200, 'which answers')
})

t.test('an address the app does not have, slash or not, and other methods, are answered as before', async (t) => {
  const { app } = await build(t)
  t.equal((await app.inject({ url: '/nothing-here/', headers: HTML })).statusCode, 404)
  t.equal((await app.inject({ url: '//evil.example/', headers: HTML })).statusCode, 404)
  const post = await app.inject({ method: 'POST', url: '/resources/theme-switch/', headers: HTML, payload: 'theme=dark' })
  t.equal(post.statusCode, 404, 'a POST is never redirected: its body would be lost')
})
