import type { LightMyRequestResponse } from 'fastify'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { createElement } from 'react'
import t from 'tap'
import { DIST_DIR } from '../../src/server/app.js'
import { publicEnv } from '../../src/server/env.js'
import type { PageData, PublicEnv, SentPageData } from '../../src/shared/page-data.js'
import type { LoaderContext } from '../../src/server/screens/index.js'
import { screen } from '../helpers/screens.js'
import { build, inlineScripts } from '../helpers/app.js'
import { blockedInlineScripts, scriptNonce } from '../helpers/csp.js'

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }
const MANIFEST = JSON.parse(readFileSync(join(DIST_DIR, 'manifest.json'), 'utf8')) as { entry: string, styles: string[], preloads: string[], pages: Record<string, string[]> }

/** Everything that would end the inline script early and run markup of the attacker's choosing. */
const HOSTILE = '</script><script>alert(1)</script><!-- \u2028 \u2029 -->'
const INJECTED = '</script><script>alert(1)'

/** A page whose loader hands hostile text to the page data, as a loader echoing user input would. */
const echoScreens = {
  echo: screen<{ text: string }>({
    path: '/echo',
    component: ({ data }) => createElement('p', { id: 'echo' }, data.text),
    meta: { title: 'Echo' }
  }, { loader: () => ({ text: HOSTILE }) })
}

type Attributes = Record<string, string>

/** The attributes of every `<tag>` in some HTML, names lowercased (React writes charSet, HTML does not care). */
function tags (html: string, tag: string): Attributes[] {
  return [...html.matchAll(new RegExp(`<${tag}\\b([^>]*?)/?>`, 'gi'))].map(([, attributes = '']) =>
    Object.fromEntries([...attributes.matchAll(/([\w:-]+)(?:="([^"]*)")?/g)].map(([, name = '', value = '']) => [name.toLowerCase(), value])))
}

function head (html: string): string {
  const match = /<head>([\s\S]*?)<\/head>/.exec(html)
  if (!match?.[1]) throw new Error('the document has no <head>')
  return match[1]
}

/** The script nonce the Content-Security-Policy allows for this response. */
function cspNonce (response: LightMyRequestResponse): string {
  const nonce = scriptNonce(response.headers['content-security-policy'])
  if (!nonce) throw new Error(`no script nonce in ${String(response.headers['content-security-policy'])}`)
  return nonce
}

/** Runs the data script as the browser does, against a stand-in window. */
function bootstrap (html: string): { script: { nonce: string | undefined, body: string }, ENV: PublicEnv, sent: SentPageData, __PAGE_DATA__: PageData } {
  const script = inlineScripts(html).find(({ body }) => body.includes('window.ENV='))
  if (!script) throw new Error('no inline script sets window.ENV')
  const window = {} as { ENV: PublicEnv, __PAGE_DATA__: SentPageData }
  new Function('window', script.body)(window)
  // As src/client/page-data.ts reads them.
  return { script, ENV: window.ENV, sent: window.__PAGE_DATA__, __PAGE_DATA__: { ...window.__PAGE_DATA__, env: window.ENV } }
}

const vary = (response: LightMyRequestResponse) => String(response.headers.vary ?? '').split(',').map((name) => name.trim().toLowerCase())
const directives = (header: unknown) => String(header ?? '').split(',').map((directive) => directive.trim().toLowerCase())

t.test('the document head has every point the shell promises', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/', headers: HTML })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  const html = response.body
  t.match(html, /^<!DOCTYPE html>/i)

  const [root] = tags(html, 'html')
  t.equal(root?.lang, 'en')
  t.ok(root?.class?.split(' ').includes('light'), 'the light theme until one is chosen')

  const inHead = head(html)
  const metas = tags(inHead, 'meta')
  t.ok(metas.some((meta) => meta.charset === 'utf-8'), '<meta charset="utf-8">')
  t.same(metas.filter((meta) => meta.name === 'viewport').map((meta) => meta.content), ['width=device-width,initial-scale=1'])
  t.equal(metas.filter((meta) => meta.name === 'robots').length, 0, 'no robots meta when indexing is allowed (the default)')
  t.match(inHead, /<title>Agent Stack<\/title>/)

  const links = tags(inHead, 'link')
  t.ok(links.some((link) => link.rel === 'icon' && link.href === '/favicon.ico' && link.sizes === '48x48'), 'the 48x48 favicon')
  t.ok(links.some((link) => link.rel === 'icon' && link.type === 'image/svg+xml' && link.href === '/favicon.svg'), 'the svg icon')
  t.ok(links.some((link) => link.rel === 'manifest' && link.href === '/site.webmanifest' && link.crossorigin === 'use-credentials'), 'the web app manifest, with credentials')

  t.ok(MANIFEST.styles.length > 0 && MANIFEST.styles.every((href) => /-[A-Z0-9]{8}\.css$/.test(href)), 'the build names its stylesheets by content hash')
  for (const href of MANIFEST.styles) t.ok(links.some((link) => link.rel === 'stylesheet' && link.href === href), `stylesheet ${href}`)
  for (const href of MANIFEST.preloads) t.ok(links.some((link) => link.rel === 'modulepreload' && link.href === href), `modulepreload ${href}`)
  // The page's own chunks too, so hydration never waits for a second round trip; the build lists them by page.
  const own = MANIFEST.pages.home ?? []
  t.ok(own.length > 0, 'the build lists the home page\'s chunks')
  for (const href of own) t.ok(links.some((link) => link.rel === 'modulepreload' && link.href === href), `the home page's modulepreload ${href}`)

  const modules = tags(html, 'script').filter((script) => script.type === 'module')
  t.same(modules.map((script) => script.src), [MANIFEST.entry], 'one module script: the client entry')
})

t.test('a robots meta tag forbids indexing exactly when ALLOW_INDEXING is false', async (t) => {
  const { app } = await build(t, { env: { ALLOW_INDEXING: 'false' } })
  const response = await app.inject({ url: '/', headers: HTML })
  t.same(tags(head(response.body), 'meta').filter((meta) => meta.name === 'robots').map((meta) => meta.content), ['noindex, nofollow'])
  t.equal(bootstrap(response.body).ENV.ALLOW_INDEXING, false)
})

t.test('window.ENV is set by a nonced inline script before the client bundle, with exactly the public configuration', async (t) => {
  const { app, env } = await build(t)
  const response = await app.inject({ url: '/', headers: HTML })
  const { script, ENV, sent, __PAGE_DATA__ } = bootstrap(response.body)
  t.equal(script.nonce, cspNonce(response), 'carries the CSP nonce')
  t.ok(response.body.indexOf(script.body) < response.body.indexOf('<script type="module"'), 'runs before the module script')
  t.same(ENV, publicEnv(env))
  t.same(Object.keys(ENV).sort(), ['ALLOW_INDEXING', 'MODE', 'OPENREPLAY_INGEST_POINT', 'OPENREPLAY_INSECURE', 'OPENREPLAY_PROJECT_KEY', 'STREAM_TIME_LIMIT_MS'])
  t.notOk('env' in sent, 'the page data does not carry it a second time')
  t.same(__PAGE_DATA__.env, ENV, 'the browser reads it into the page data')
})

t.test('no secret reaches the page, its headers or its cookies', async (t) => {
  const { app, env } = await build(t, { screens: echoScreens })
  for (const url of ['/', '/echo', '/no-such-page']) {
    const response = await app.inject({ url, headers: HTML })
    const everything = `${JSON.stringify(response.headers)}\n${response.body}`
    for (const secret of env.SESSION_SECRET) t.notOk(everything.includes(secret), `${url}: no SESSION_SECRET`)
    for (const secret of env.HONEYPOT_SECRET) t.notOk(everything.includes(secret), `${url}: no HONEYPOT_SECRET`)
  }
})

t.test('a hostile configuration value stays inert in window.ENV', async (t) => {
  const ingest = `https://x/${HOSTILE.replace(/\s/g, '')}`
  const { app } = await build(t, { env: { OPENREPLAY_INGEST_POINT: ingest } })
  const response = await app.inject({ url: '/', headers: HTML })
  t.notOk(response.body.includes(INJECTED), 'the raw markup never appears in the HTML')
  t.notOk(response.body.includes('<!---->'), 'nor the comment opener')
  t.equal(bootstrap(response.body).ENV.OPENREPLAY_INGEST_POINT, ingest, 'the script still yields the original value')
})

t.test('hostile page data (</script>, <!--, U+2028, U+2029) stays inert in the data script and the markup', async (t) => {
  const { app } = await build(t, { screens: echoScreens })
  const response = await app.inject({ url: '/echo', headers: HTML })
  t.equal(response.statusCode, 200)
  t.match(response.body, /<title>Echo \| Agent Stack<\/title>/)
  t.notOk(response.body.includes(INJECTED), 'the raw markup never appears in the HTML')
  t.notOk(/[\u2028\u2029]/.test(inlineScripts(response.body).map(({ body }) => body).join('')), 'no raw line or paragraph separator in a script')
  t.equal(inlineScripts(response.body).filter(({ body }) => body.includes('alert(1)')).length, 1, 'the value is inside the one data script, not a script of its own')
  t.same(bootstrap(response.body).__PAGE_DATA__.page, { id: 'echo', status: 200, data: { text: HOSTILE } }, 'the browser reads back exactly what the loader returned')
  t.match(response.body, '<p id="echo">&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;', 'React escapes it as text in the markup')
})

t.test('a page can take its title from its data, escaped like any text', async (t) => {
  const record = screen<{ name: string }>({
    path: '/record',
    component: ({ data }) => createElement('h1', null, data.name),
    meta: { title: ({ data }) => `Record ${data.name}` }
  }, { loader: ({ url }: LoaderContext) => ({ name: url.searchParams.get('name') ?? 'Unnamed' }) })
  const { app } = await build(t, { screens: { record } })
  const named = await app.inject({ url: '/record?name=Ada', headers: HTML })
  t.match(named.body, '<title>Record Ada | Agent Stack</title>')
  const hostile = await app.inject({ url: `/record?name=${encodeURIComponent(INJECTED)}`, headers: HTML })
  t.match(hostile.body, '<title>Record &lt;/script&gt;&lt;script&gt;alert(1) | Agent Stack</title>')
  t.notOk(hostile.body.includes(INJECTED), 'the raw markup never appears in the HTML')
})

t.test('every inline script carries the CSP nonce, and the nonce is new for every request', async (t) => {
  const { app } = await build(t)
  const nonces: string[] = []
  for (const url of ['/', '/', '/no-such-page']) {
    const response = await app.inject({ url, headers: HTML })
    const nonce = cspNonce(response)
    t.match(nonce, /^[A-Za-z0-9+/=_-]{16,}$/, 'a long random nonce')
    const scripts = inlineScripts(response.body)
    t.ok(scripts.length > 0, `${url} has inline scripts`)
    for (const script of scripts) t.equal(script.nonce, nonce, `${url}: inline script ${script.body.slice(0, 30)}… carries the nonce`)
    for (const script of tags(response.body, 'script').filter((script) => script.src)) t.equal(script.nonce, nonce, `${url}: ${script.src} carries the nonce`)
    nonces.push(nonce)
  }
  t.equal(new Set(nonces).size, nonces.length, 'no nonce is reused')
})

t.test('the Content-Security-Policy is enforced and locks down plugins, <base> and framing', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/', headers: HTML })
  t.equal(response.headers['content-security-policy-report-only'], "require-trusted-types-for 'script'; report-to csp-endpoint; report-uri /resources/csp-report", 'only Trusted Types are report-only (docs/decisions/trusted-types.md)')
  const policy = String(response.headers['content-security-policy'])
  const directive = (name: string) => policy.split(';').map((part) => part.trim()).find((part) => part.startsWith(`${name} `))
  t.equal(directive('object-src'), "object-src 'none'")
  t.ok(directive('base-uri'), 'base-uri is restricted')
  t.ok(directive('frame-ancestors'), 'frame-ancestors is restricted')
  t.notMatch(directive('script-src') ?? '', /'unsafe-inline'|'unsafe-eval'/, 'scripts run only by nonce or from our origin')
})

t.test('HTML is private to the visitor: Cache-Control private, no-cache and a Vary naming Cookie', async (t) => {
  const { app } = await build(t)
  for (const url of ['/', '/no-such-page']) {
    const response = await app.inject({ url, headers: HTML })
    t.ok(directives(response.headers['cache-control']).includes('private'), `${url}: private`)
    t.ok(directives(response.headers['cache-control']).includes('no-cache'), `${url}: no-cache`)
    t.notOk(directives(response.headers['cache-control']).includes('public'), `${url}: never public`)
    t.ok(vary(response).includes('cookie'), `${url}: Vary names Cookie`)
  }
})

t.test('HTML is compressed with brotli or gzip when the client accepts it', async (t) => {
  const { app } = await build(t)
  const plain = await app.inject({ url: '/', headers: { ...HTML, 'accept-encoding': 'identity' } })
  t.equal(plain.headers['content-encoding'], undefined, 'identity when nothing else is accepted')
  for (const [encoding, decompress] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
    const response = await app.inject({ url: '/', headers: { ...HTML, 'accept-encoding': encoding } })
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-encoding'], encoding, `${encoding}: Content-Encoding`)
    t.ok(vary(response).includes('accept-encoding'), `${encoding}: Vary names Accept-Encoding`)
    t.ok(vary(response).includes('cookie'), `${encoding}: and still Cookie`)
    const html = decompress(response.rawPayload).toString('utf8')
    t.match(html, /^<!DOCTYPE html><html[^>]*>[\s\S]*<title>Agent Stack<\/title>[\s\S]*<\/html>$/i, `${encoding}: decompresses to the whole document`)
    t.same(blockedInlineScripts(html, response.headers['content-security-policy']), [], `${encoding}: its inline scripts allowed by its own policy`)
    // The same document as the uncompressed one, up to what is fresh per request (a kept one has no nonce).
    const perRequest = (text: string) => text.replace(/ nonce="[^"]+"/g, '').replace(/"encryptedValidFrom":"[^"]+"/g, '""')
    t.equal(perRequest(html), perRequest(plain.body), `${encoding}: same document as uncompressed`)
  }
})

t.test('an unknown path gets the 404 document in the same shell', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/no/such/page?x=1', headers: HTML })
  t.equal(response.statusCode, 404)
  t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  const inHead = head(response.body)
  t.match(inHead, /<title>Page not found \| Agent Stack<\/title>/)
  t.ok(tags(inHead, 'meta').some((meta) => meta.charset === 'utf-8'))
  t.ok(tags(inHead, 'link').some((link) => link.rel === 'stylesheet' && link.href === MANIFEST.styles[0]))
  t.match(response.body, /<h1>Page not found<\/h1>/)
  const { script, __PAGE_DATA__ } = bootstrap(response.body)
  t.equal(script.nonce, cspNonce(response))
  t.same(__PAGE_DATA__.page, { id: 'notFound', status: 404, data: { title: 'Page not found', message: 'There is nothing at this address.' } })
})

t.test('an unknown path asked for as JSON gets a JSON 404; without a preference, the page', async (t) => {
  const { app } = await build(t)
  const json = await app.inject({ url: '/no/such/resource', headers: { accept: 'application/json' } })
  t.equal(json.statusCode, 404)
  t.match(json.headers['content-type'], /^application\/json/)
  t.same(json.json(), { statusCode: 404, error: 'Not Found', message: 'There is nothing at this address.' })
  const any = await app.inject({ url: '/no/such/resource', headers: { accept: '*/*' } })
  t.equal(any.statusCode, 404)
  t.match(any.body, /<h1>Page not found<\/h1>/)
})

t.test('the document is GET and HEAD only: POST / gets 405 with Allow, not the home page', async (t) => {
  const { app } = await build(t)
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
    const response = await app.inject({ method, url: '/?from=form', headers: HTML })
    t.equal(response.statusCode, 405, method)
    t.equal(response.headers.allow, 'GET, HEAD', `${method}: Allow names what the address takes`)
    t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    t.match(response.body, '<title>Method not allowed | Agent Stack</title>', `${method}: the tab says what went wrong`)
    t.match(response.body, `This address does not accept ${method} requests, only GET or HEAD.`)
    t.notMatch(response.body, /<main class="home"/)
    t.equal(bootstrap(response.body).script.nonce, cspNonce(response), `${method}: the page is the app's own, under its CSP`)
  }
})

t.test('a method an address does not take is a 405 for scripts too; an address we do not have stays a 404', async (t) => {
  const { app } = await build(t)
  const json = { accept: 'application/json' }
  const get = await app.inject({ url: '/resources/theme-switch', headers: json })
  t.equal(get.statusCode, 405)
  t.equal(get.headers.allow, 'POST')
  t.same(get.json(), { statusCode: 405, error: 'Method Not Allowed', message: 'This address does not accept GET requests, only POST.' })
  const probe = await app.inject({ method: 'DELETE', url: '/resources/healthcheck', headers: json })
  t.equal(probe.statusCode, 405)
  t.equal(probe.headers.allow, 'GET, HEAD')
  const unknown = await app.inject({ method: 'POST', url: '/no/such/resource', headers: json })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers.allow, undefined)
  const head = await app.inject({ method: 'HEAD', url: '/no/such/page' })
  t.equal(head.statusCode, 404)
})

t.test('HEAD / answers with the headers of the document and no body', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ method: 'HEAD', url: '/', headers: HTML })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
  t.ok(directives(response.headers['cache-control']).includes('private'))
  t.ok(response.headers['content-security-policy'])
  t.equal(response.body, '')
})
