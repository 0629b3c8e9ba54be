import { createElement } from 'react'
import t from 'tap'
import { DEFAULT_DESCRIPTION } from '../../src/ui/document.js'
import home from '../../src/screens/home.js'
import type { LoaderContext } from '../../src/server/screens/index.js'
import { screen } from '../helpers/screens.js'
import { build } from '../helpers/app.js'

/**
 * Every page's <head> says what it is: a description (the page's, else the
 * shell's) and, where the page names one, an absolute canonical address.
 * Values from data are escaped like any text.
 */

const HTML = { accept: 'text/html' }
const HOSTILE = '"><script>alert(1)</script>'

interface HeadMeta { descriptions: string[], canonicals: string[] }

/** The description metas and canonical links of a document's head, attribute values decoded as a browser would. */
function headMeta (html: string): HeadMeta {
  const head = /<head>([\s\S]*?)<\/head>/.exec(html)?.[1] ?? ''
  const decode = (value: string) => value.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#x27;/g, "'").replace(/&amp;/g, '&')
  return {
    descriptions: [...head.matchAll(/<meta name="description" content="([^"]*)"\/>/g)].map(([, value = '']) => decode(value)),
    canonicals: [...head.matchAll(/<link rel="canonical" href="([^"]*)"\/>/g)].map(([, value = '']) => decode(value))
  }
}

const screens = {
  note: screen<{ summary: string, address: string }>({
    path: '/note',
    component: ({ data }) => createElement('h1', null, data.summary),
    meta: { title: 'Note', description: ({ data }) => data.summary, canonical: ({ data }) => data.address }
  }, { loader: ({ url }: LoaderContext) => ({ summary: url.searchParams.get('summary') ?? '', address: url.searchParams.get('address') ?? '' }) }),
  plain: screen({ path: '/plain', component: () => createElement('h1', null, 'Plain') }),
  broken: screen({ path: '/broken', component: () => createElement('h1', null, 'Broken') }, { loader: () => { throw new Error('the database is down') } })
}

t.test('the home page describes the product and names its canonical address', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/?utm_source=mail', headers: { ...HTML, host: 'agent-stack.example:8443' } })
  t.equal(response.statusCode, 200)
  t.same(headMeta(response.body), {
    descriptions: [home.meta?.description],
    canonicals: ['http://agent-stack.example:8443/']
  }, 'one description and one canonical, without the query the visitor came with')
})

t.test('a page without a description gets the shell’s, and no canonical', async (t) => {
  const { app } = await build(t, { screens })
  const response = await app.inject({ url: '/plain', headers: HTML })
  t.same(headMeta(response.body), { descriptions: [DEFAULT_DESCRIPTION], canonicals: [] })
})

t.test('the error pages describe what happened and name no canonical address', async (t) => {
  const { app } = await build(t, { screens, allowErrorLogs: true })
  const notFound = await app.inject({ url: '/no-such-page', headers: HTML })
  t.equal(notFound.statusCode, 404)
  t.same(headMeta(notFound.body), { descriptions: ['There is nothing at this address of Agent Stack.'], canonicals: [] })

  const badRequest = await app.inject({ method: 'POST', url: '/resources/theme-switch', headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'theme=sepia' })
  t.equal(badRequest.statusCode, 400)
  const { descriptions, canonicals } = headMeta(badRequest.body)
  t.equal(descriptions.length, 1)
  t.ok(descriptions[0] && badRequest.body.includes(`<p role="alert">${descriptions[0]}</p>`), `the page's own message: ${descriptions[0]}`)
  t.same(canonicals, [])

  const failed = await app.inject({ url: '/broken', headers: HTML })
  t.equal(failed.statusCode, 500)
  t.same(headMeta(failed.body), { descriptions: ['Agent Stack could not show this page. Please try again in a moment.'], canonicals: [] })
})

t.test('a description and a canonical address from data are escaped, and only http(s) addresses are named', async (t) => {
  const { app } = await build(t, { screens })
  const visit = async (summary: string, address: string) => {
    const response = await app.inject({ url: `/note?${new URLSearchParams({ summary, address })}`, headers: HTML })
    t.equal(response.statusCode, 200)
    t.notOk(response.body.includes('<script>alert(1)'), 'no markup of the data’s making')
    return headMeta(response.body)
  }
  t.same(await visit(HOSTILE, `/notes/${HOSTILE}`), {
    descriptions: [HOSTILE],
    canonicals: ['http://localhost/notes/%22%3E%3Cscript%3Ealert(1)%3C/script%3E']
  }, 'read back exactly, the address percent-encoded')
  t.same((await visit('Elsewhere', 'https://mirror.example/note')).canonicals, ['https://mirror.example/note'], 'an absolute address is kept')
  t.same((await visit('Scripted', 'javascript:alert(1)')).canonicals, [], 'a javascript: address is dropped')
  t.same((await visit('', '')).descriptions, [DEFAULT_DESCRIPTION], 'an empty description falls back to the shell’s')
})

t.test('a Host header that names no origin leaves a path without a canonical address, and the page still renders', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/', headers: { ...HTML, host: 'bad host' } })
  t.equal(response.statusCode, 200)
  t.same(headMeta(response.body), { descriptions: [home.meta?.description], canonicals: [] })
})
