import type { LightMyRequestResponse } from 'fastify'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { DIST_DIR } from '../../src/server/app.js'
import { servedFiles } from '../../src/server/plugins/external/static-assets.js'
import { build } from '../helpers/app.js'

const CLIENT_DIR = join(DIST_DIR, 'client')
const MANIFEST = JSON.parse(readFileSync(join(DIST_DIR, 'manifest.json'), 'utf8')) as { entry: string, styles: string[], preloads: string[], deferred: string[] }
const TRACKER = readdirSync(join(CLIENT_DIR, 'assets')).filter((file) => /^tracker-\w+\.js$/.test(file)).map((file) => `/assets/${file}`)
const HASHED = [MANIFEST.entry, ...MANIFEST.styles, ...MANIFEST.preloads, ...MANIFEST.deferred, ...TRACKER]
const UNHASHED = ['/favicon.ico', '/favicon.svg', '/site.webmanifest', '/icon-192.png']

const onDisk = (url: string) => readFileSync(join(CLIENT_DIR, url))

function maxAge (response: LightMyRequestResponse): number | undefined {
  const match = /(?:^|,)\s*max-age=(\d+)/.exec(String(response.headers['cache-control'] ?? ''))
  return match?.[1] === undefined ? undefined : Number(match[1])
}

t.test('hashed assets are cached for a year and never revalidated', async (t) => {
  const { app } = await build(t)
  t.ok(HASHED.length >= 2, 'the build lists its hashed assets')
  for (const url of HASHED) {
    t.match(url, /^\/assets\/[\w-]+-[A-Z0-9]{8}\.(js|css)$/, `${url} is named by its content hash`)
    const response = await app.inject({ url })
    t.equal(response.statusCode, 200, `${url} is served`)
    t.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable', `${url}: a year, immutable`)
    t.match(response.headers['content-type'], url.endsWith('.css') ? /^text\/css/ : /^(application|text)\/javascript/)
  }
})

t.test('unhashed files (favicon, manifest, icons) are cached briefly', async (t) => {
  const { app } = await build(t)
  for (const url of UNHASHED) {
    const response = await app.inject({ url })
    t.equal(response.statusCode, 200, `${url} is served`)
    const age = maxAge(response)
    t.ok(age !== undefined && age > 0 && age <= 86_400, `${url}: a max-age of at most a day (${response.headers['cache-control']})`)
    t.notMatch(String(response.headers['cache-control']), /immutable/, `${url}: may change, so not immutable`)
    t.same(response.rawPayload, onDisk(url), `${url}: the file's bytes`)
  }
})

t.test('precompressed variants are served when accepted, identical to the original once decompressed', async (t) => {
  const { app } = await build(t)
  const compressible = [...HASHED, '/favicon.svg', '/site.webmanifest']
  for (const url of compressible) {
    const original = onDisk(url)
    const identity = await app.inject({ url })
    t.ok(existsSync(join(CLIENT_DIR, `${url}.br`)) && existsSync(join(CLIENT_DIR, `${url}.gz`)), `${url}: the build wrote .br and .gz`)
    for (const [encoding, decompress] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
      const response = await app.inject({ url, headers: { 'accept-encoding': encoding } })
      t.equal(response.statusCode, 200)
      t.equal(response.headers['content-encoding'], encoding, `${url}: ${encoding} when accepted`)
      t.match(String(response.headers.vary), /accept-encoding/i, `${url}: a cache keys it by Accept-Encoding`)
      t.same(decompress(response.rawPayload), original, `${url}: ${encoding} decompresses to the original`)
      t.same(response.rawPayload, onDisk(`${url}.${encoding === 'br' ? 'br' : 'gz'}`), `${url}: the build's file, not compressed per request`)
      t.equal(response.headers['cache-control'], identity.headers['cache-control'], `${url}: the same caching when compressed`)
    }
    const prefersBrotli = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } })
    t.equal(prefersBrotli.headers['content-encoding'], 'br', `${url}: brotli when both are accepted`)
    for (const headers of [{}, { 'accept-encoding': 'identity' }]) {
      const response = await app.inject({ url, headers })
      t.equal(response.headers['content-encoding'], undefined, `${url}: identity when ${JSON.stringify(headers)}`)
      t.same(response.rawPayload, original)
    }
  }
})

t.test('a file removed from disk under a running server is not found, not refused a method its route takes', async (t) => {
  const distDir = mkdtempSync(join(tmpdir(), 'assets-'))
  t.teardown(() => rmSync(distDir, { recursive: true, force: true }))
  cpSync(DIST_DIR, distDir, { recursive: true })
  const { app } = await build(t, { distDir, env: { NODE_ENV: 'production' } })
  rmSync(join(distDir, 'client', MANIFEST.styles[0]!))
  const response = await app.inject({ url: MANIFEST.styles[0]!, headers: { accept: 'text/css,*/*;q=0.1' } })
  t.equal(response.statusCode, 404)
  t.equal(response.headers.allow, undefined, 'no Allow header: the method was never the problem')
})

const JSON_CLIENT = { accept: 'application/json' }
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

/** Asserts a refusal is told in its status's words, to a script as JSON and to a browser as the client-error document. */
async function assertRefusal (t: Test, ask: (headers: Record<string, string>) => Promise<LightMyRequestResponse>, expected: { status: number, error: string, title: string, message: string }) {
  const json = await ask(JSON_CLIENT)
  t.equal(json.statusCode, expected.status)
  t.same(json.json(), { statusCode: expected.status, error: expected.error, message: expected.message }, 'JSON: HTTP\'s words and a sentence')
  const html = await ask(BROWSER)
  t.equal(html.statusCode, expected.status)
  t.equal(html.headers['content-type'], 'text/html; charset=utf-8')
  t.match(html.body, `<title>${expected.title} | Agent Stack</title>`, 'HTML: titled for its status')
  t.match(html.body, `<p role="alert">${expected.message}</p>`, 'HTML: with the message')
  return [json, html]
}

t.test('a range outside the file is 416 naming its length, in Content-Range (RFC 9110 §15.5.17) and in words', async (t) => {
  const { app } = await build(t)
  const url = '/favicon.svg'
  const { size } = statSync(join(CLIENT_DIR, url))
  for (const range of ['bytes=999999999-', `bytes=${size}-`]) {
    const answers = await assertRefusal(t, (headers) => app.inject({ url, headers: { ...headers, range } }), {
      status: 416,
      error: 'Range Not Satisfiable',
      title: 'Range outside the file',
      message: `The requested range lies outside the file, which is ${size} bytes long.`
    })
    for (const response of answers) t.equal(response.headers['content-range'], `bytes */${size}`, `${range}: the length a client can ask within`)
  }
  const within = await app.inject({ url, headers: { range: 'bytes=0-9' } })
  t.equal(within.statusCode, 206, 'a range within the file is served')
  t.equal(within.headers['content-range'], `bytes 0-9/${size}`)
  t.same(within.rawPayload, onDisk(url).subarray(0, 10))
})

t.test('a precondition that does not hold is 412 saying the file changed', async (t) => {
  const { app } = await build(t)
  const url = '/favicon.svg'
  const { etag, 'last-modified': lastModified } = (await app.inject({ url })).headers
  const failing = { 'if-match': '"nope"', 'if-unmodified-since': new Date(Date.parse(String(lastModified)) - 86_400_000).toUTCString() }
  for (const [name, value] of Object.entries(failing)) {
    const answers = await assertRefusal(t, (headers) => app.inject({ url, headers: { ...headers, [name]: value } }), {
      status: 412,
      error: 'Precondition Failed',
      title: 'Changed since your copy',
      message: 'The file changed since your copy: the condition in If-Match or If-Unmodified-Since did not hold. Fetch it again.'
    })
    for (const response of answers) t.notSame(response.rawPayload, onDisk(url), `${name}: not the file`)
  }
  const holding = await app.inject({ url, headers: { 'if-match': String(etag), 'if-unmodified-since': String(lastModified) } })
  t.equal(holding.statusCode, 200, 'a precondition that holds gets the file')
  t.same(holding.rawPayload, onDisk(url))
})

t.test('the compressed files are not served under their own names', async (t) => {
  const { app } = await build(t)
  for (const url of [`${MANIFEST.entry}.br`, `${MANIFEST.entry}.gz`, '/site.webmanifest.br', '/favicon.svg.gz']) {
    t.ok(existsSync(join(CLIENT_DIR, url)), `${url} exists on disk`)
    const response = await app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } })
    t.equal(response.statusCode, 404, `${url} is not found`)
    t.notSame(response.rawPayload, onDisk(url), `${url}: not its bytes`)
  }
})

t.test('a file is served only by its own name: never a compressed variant, a dot file, or a map unless asked', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'served-files-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const files = ['favicon.svg', 'favicon.svg.br', 'favicon.svg.gz', 'assets/entry-AB12CD34.js', 'assets/entry-AB12CD34.js.map',
    'assets/deep/er.css', '.env', 'assets/.hidden.js', '.git/config']
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true })
    writeFileSync(join(root, file), file)
  }
  t.same(servedFiles(root, false).sort(), ['assets/deep/er.css', 'assets/entry-AB12CD34.js', 'favicon.svg'])
  t.same(servedFiles(root, true).sort(), ['assets/deep/er.css', 'assets/entry-AB12CD34.js', 'assets/entry-AB12CD34.js.map', 'favicon.svg'])
})

t.test('/site.webmanifest is a valid manifest naming Agent Stack whose icons are all served', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/site.webmanifest' })
  t.equal(response.headers['content-type'], 'application/manifest+json')
  const manifest = JSON.parse(response.body) as { name?: string, short_name?: string, start_url?: string, icons?: Array<{ src: string, sizes: string, type: string }> }
  t.equal(manifest.name, 'Agent Stack')
  t.ok(manifest.short_name, 'a short name for home screens')
  t.equal(manifest.start_url, '/')
  t.ok(manifest.icons && manifest.icons.length >= 2, 'icons')
  t.ok(manifest.icons?.some((icon) => icon.sizes === '192x192') && manifest.icons.some((icon) => icon.sizes === '512x512'), 'the 192 and 512 icons installers ask for')
  for (const icon of manifest.icons ?? []) {
    const served = await app.inject({ url: icon.src })
    t.equal(served.statusCode, 200, `${icon.src} is served`)
    t.equal(served.headers['content-type'], icon.type, `${icon.src} has the declared type`)
    if (icon.type === 'image/png') {
      t.same(served.rawPayload.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), `${icon.src} is a PNG`)
      const [width, height] = icon.sizes.split('x').map(Number)
      t.same([served.rawPayload.readUInt32BE(16), served.rawPayload.readUInt32BE(20)], [width, height], `${icon.src} is ${icon.sizes}`)
    }
  }
})

t.test('/favicon.ico is a real 48x48 icon', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/favicon.ico' })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^image\/(vnd\.microsoft\.icon|x-icon)$/)
  const ico = response.rawPayload
  // ICONDIR: reserved 0, type 1 (icon), image count; then 16-byte ICONDIRENTRYs (a width or height of 0 means 256).
  t.equal(ico.readUInt16LE(0), 0, 'reserved')
  t.equal(ico.readUInt16LE(2), 1, 'an icon, not a cursor')
  const count = ico.readUInt16LE(4)
  t.ok(count >= 1, 'at least one image')
  const entries = Array.from({ length: count }, (_, index) => {
    const at = 6 + index * 16
    return { width: ico[at] || 256, height: ico[at + 1] || 256, size: ico.readUInt32LE(at + 8), offset: ico.readUInt32LE(at + 12) }
  })
  const image = entries.find((entry) => entry.width === 48 && entry.height === 48)
  t.ok(image, 'has a 48x48 image')
  if (!image) return
  t.ok(image.offset >= 6 + count * 16 && image.offset + image.size <= ico.length, 'the image lies within the file')
  const data = ico.subarray(image.offset, image.offset + image.size)
  if (data.subarray(1, 4).toString('latin1') === 'PNG') {
    t.same([data.readUInt32BE(16), data.readUInt32BE(20)], [48, 48], 'its embedded PNG is 48x48')
  } else {
    t.same([data.readInt32LE(4), data.readInt32LE(8)], [48, 96], 'its BMP is 48 wide and 2 × 48 high (image and mask)')
  }
})

t.test('source maps are served while developing, and in production only when the operator opts in', async (t) => {
  const map = `${MANIFEST.entry}.map`
  t.ok(existsSync(join(CLIENT_DIR, map)), `the build writes ${map}`)
  const cases: Array<[string, Record<string, string>, number]> = [
    ['development', { NODE_ENV: 'development' }, 200],
    ['production', { NODE_ENV: 'production' }, 404],
    ['production with SERVE_SOURCE_MAPS=true', { NODE_ENV: 'production', SERVE_SOURCE_MAPS: 'true' }, 200]
  ]
  for (const [name, env, status] of cases) {
    const { app } = await build(t, { env })
    t.equal((await app.inject({ url: map })).statusCode, status, `${name}: the map answers ${status}`)
    t.equal((await app.inject({ url: MANIFEST.entry })).statusCode, 200, `${name}: the script itself is served`)
  }
})
