import { createElement } from 'react'
import t from 'tap'
import { Type } from 'typebox'
import * as SCREENS from '../../src/screens/index.js'
import { clientError } from '../../src/server/errors.js'
import { defineLoader } from '../../src/server/screens/index.js'
import { loadScreens } from '../../src/server/screens/load-screens.js'
import { build, pageData } from '../helpers/app.js'
import { screen } from '../helpers/screens.js'

const view = { path: '/one', component: () => createElement('p', null, 'one') }

t.test('the registry as the server runs it: each view loaded, loaders and form routes from the server modules', async (t) => {
  const loader = () => ({ n: 1 })
  const loaded = await loadScreens({ ...SCREENS, one: screen(view, { loader }) })
  t.same(loaded.screens.map(({ id }) => id).sort(), [...Object.keys(SCREENS), 'one'].sort(), 'the registry\'s screens and the test\'s')
  t.equal(loaded.loaders.get('one'), loader)
  // The shell's own screens, whatever else the registry lists (the examples have loaders and a form of their own).
  t.same(['home', 'notFound', 'clientError', 'serverError', 'one'].filter((id) => loaded.loaders.has(id)), ['one'], 'only screens with a loader have one')
  t.notOk(loaded.forms.some((form) => form.path === '/one'), 'a screen without an action has no form')
})

t.test('a screen written wrong stops start-up with its id named', async (t) => {
  await t.rejects(loadScreens({ odd: { view: async () => ({ default: {} as never }) } }), /the screen "odd": its view must `export default defineScreen/)
  await t.rejects(loadScreens({ odd: screen(view, { helpers: 1 }) }), /the screen "odd": its server module exports neither `loader` nor `action`/)
  await t.rejects(loadScreens({ odd: screen(view, { loader: 'data' }) }), /the screen "odd": its `loader` is not a function/)
  await t.rejects(loadScreens({ one: screen(view), two: screen(view) }), /the screens "one" and "two" have the same path, \/one/)
  await t.rejects(loadScreens({ odd: screen({ ...view, path: 'one' }) }), /the screen "odd": its path "one" must begin with \//)
  // Two sign-out forms, say: the router would name neither screen.
  const signOut = { action: { path: '/sign-out', schema: Type.Object({}), handle () {} } }
  await t.rejects(loadScreens({ one: screen(view, signOut), two: screen({ ...view, path: '/two' }, signOut) }), /the screens "one" and "two" have forms that post to the same path \(give one action a `path` of its own\), \/sign-out/)
  await t.rejects(loadScreens({ odd: screen({ component: view.component }, { action: { schema: {}, handle () {} } }) }), /has no path/, 'a form needs an address')
  // A package that reads `window` as it is imported: Node's own error names only the package.
  const browserOnly = async () => { throw new ReferenceError('window is not defined') }
  await t.rejects(loadScreens({ odd: { view: browserOnly } }), /the screen "odd": its view could not be imported \(the server renders a view too: .*`useEffect`\): window is not defined/)
  await t.rejects(loadScreens({ odd: { view: async () => ({ default: view }), server: browserOnly } }), /the screen "odd": its server module could not be imported: window is not defined/)
})

t.test('a loader that answers itself returns the reply: a redirect, with no page rendered', async (t) => {
  interface Account { name: string }
  const signedIn = defineLoader<Account>(({ request, reply }) => {
    if (request.cookies.session === undefined) return reply.redirect('/sign-in', 303)
    return { name: 'Ada' }
  })
  let renders = 0
  const { app, logs } = await build(t, { screens: { account: screen({ path: '/account', component: () => { renders++; return null } }, { loader: signedIn }) } })
  const away = await app.inject({ url: '/account', headers: { accept: 'text/html' } })
  t.equal(away.statusCode, 303)
  t.equal(away.headers.location, '/sign-in')
  t.equal(away.body, '', 'no page')
  t.equal(renders, 0, 'none rendered behind the redirect')
  t.same(logs.filter((entry) => entry.level >= 40).map((entry) => entry.msg), [], 'nor sent after it')
  const page = await app.inject({ url: '/account', headers: { accept: 'text/html' }, cookies: { session: 'x' } })
  t.equal(page.statusCode, 200)
  t.same(pageData(page.body).page.data, { name: 'Ada' })
})

t.test('a loader\'s not-found message reaches a browser as it reaches a script', async (t) => {
  const note = defineLoader<{ id: string }>(() => { throw clientError('NOT_FOUND', 'This note was deleted.') })
  const { app } = await build(t, { screens: { note: screen({ path: '/notes/:id', component: () => null }, { loader: note }) } })
  const page = await app.inject({ url: '/notes/7', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 404)
  t.match(page.body, /<h1>Page not found<\/h1><p>This note was deleted\./, 'the not-found page, in the loader\'s words')
  t.same(pageData(page.body).page.data, { title: 'Page not found', message: 'This note was deleted.' })
  const json = await app.inject({ url: '/notes/7', headers: { accept: 'application/json' } })
  t.equal(json.json().message, 'This note was deleted.')
  const unknown = await app.inject({ url: '/no/such/note', headers: { accept: 'text/html' } })
  t.match(unknown.body, /<p>There is nothing at this address\./, 'an unknown address, in the catalogue\'s')
})
