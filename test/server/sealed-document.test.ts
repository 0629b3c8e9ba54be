import { createHash } from 'node:crypto'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { toTemplate, type Fillings } from '../../src/server/rendering/render-cache.js'
import { inlineScriptHashes, sealDocument, sealedBody } from '../../src/server/rendering/sealed-document.js'

const FILLED: Fillings = { nonce: 'NONCE-one-0123456789ab', honeypotToken: 'TOKEN-one-0123456789abcdefghijklmnop' }
const PAGE_DATA = (token: string) => `window.__PAGE_DATA__={"token":"${token}"}`
const DOCUMENT = `<head><script nonce="${FILLED.nonce}">${PAGE_DATA(FILLED.honeypotToken)}</script>` +
  `<script type="speculationrules" nonce="${FILLED.nonce}">{"prerender":[]}</script></head>` +
  `<body><input value="${FILLED.honeypotToken}"><script type="module" nonce="${FILLED.nonce}" src="/a.js" async=""></script></body>`
const sha256 = (text: string) => `sha256-${createHash('sha256').update(text).digest('base64')}`

t.test('a sealed document has no nonce, the token of its time, and its inline scripts\' hashes', async (t) => {
  const sealed = sealDocument(toTemplate(DOCUMENT, FILLED), 'TOKEN-two')
  t.equal(sealed.identity.toString(),
    `<head><script>${PAGE_DATA('TOKEN-two')}</script><script type="speculationrules">{"prerender":[]}</script></head>` +
    '<body><input value="TOKEN-two"><script type="module" src="/a.js" async=""></script></body>',
    'each nonce goes with its attribute; each token slot takes the new token')
  t.same(sealed.scriptHashes, [sha256(PAGE_DATA('TOKEN-two')), sha256('{"prerender":[]}')], 'the inline scripts, as they now read; not the one with a src')
  t.equal(sealed.honeypotToken, 'TOKEN-two')
})

t.test('a nonce outside a nonce attribute is left empty', async (t) => {
  const sealed = sealDocument(toTemplate(`<p data-n="${FILLED.nonce}"></p>`, FILLED), FILLED.honeypotToken)
  t.equal(sealed.identity.toString(), '<p data-n=""></p>')
})

t.test('the same script twice is one hash; a document without inline scripts has none', async (t) => {
  t.same(inlineScriptHashes('<script>a()</script><div></div><script nonce="x">a()</script>'), [sha256('a()')])
  t.same(inlineScriptHashes('<script src="/a.js"></script><p>no script</p>'), [])
  t.same(inlineScriptHashes('<script></script>'), [sha256('')], 'an empty inline script is hashed too')
})

t.test('each encoding is compressed once, and decodes to the document', async (t) => {
  const sealed = sealDocument(toTemplate(DOCUMENT.repeat(20), FILLED), FILLED.honeypotToken)
  t.equal(sealedBody(sealed, null), sealed.identity, 'identity is the document itself')
  const br = sealedBody(sealed, 'br')
  const gzip = sealedBody(sealed, 'gzip')
  t.ok(brotliDecompressSync(br).equals(sealed.identity), 'br')
  t.ok(gunzipSync(gzip).equals(sealed.identity), 'gzip')
  t.ok(br.length < sealed.identity.length / 4, `compressed (${br.length} of ${sealed.identity.length} bytes)`)
  t.equal(sealedBody(sealed, 'br'), br, 'asked again, the same bytes, not compressed again')
  t.equal(sealedBody(sealed, 'gzip'), gzip)
})
