import { CONFIG } from '@mdn/mdn-http-observatory/src/config.js'
import { Session } from '@mdn/mdn-http-observatory/src/retriever/session.js'
import { parseHttpEquivHeaders } from '@mdn/mdn-http-observatory/src/retriever/utils.js'
import { Requests, type HttpResponse, type Output } from '@mdn/mdn-http-observatory/src/types.js'
import { AxiosHeaders } from 'axios'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import type { Test } from 'tap'
import type { CookieJar } from 'tough-cookie'

/**
 * The MDN HTTP Observatory (@mdn/mdn-http-observatory) run on the app's own
 * responses. Its scanner (src/scanner/index.js) retrieves a site over the
 * network (src/retriever/), then runs its tests and grades the result; here
 * the retrieval is rebuilt from the app's answers, in the retriever's shape,
 * and everything after it is the observatory's own code.
 *
 * The app is graded as deployed: behind a TLS-terminating proxy at a public
 * HTTPS origin, which passes Host on and says the scheme in X-Forwarded-Proto.
 */

/** Reserved (RFC 2606): it can never be on the HSTS preload list, so the verdicts cannot depend on that list. */
export const PUBLIC_HOST = 'agent-stack.example'
export const PUBLIC_ORIGIN = `https://${PUBLIC_HOST}`

/** What the retriever sends (src/retriever/retriever.js STANDARD_HEADERS, its user agent, axios's Accept-Encoding). */
const RETRIEVER_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'user-agent': CONFIG.retriever.retrieverUserAgent,
  'accept-encoding': 'gzip, compress, deflate, br'
}
/** src/retriever/session.js */
const REDIRECT_STATUS_CODES = [301, 302, 303, 307, 308]
const MAX_REDIRECTS = 10

/** One request through the proxy, answered as axios hands a response to the retriever: decoded, AxiosHeaders, verified. */
async function exchange (app: FastifyInstance, method: 'GET' | 'OPTIONS', url: URL, headers: Record<string, string>): Promise<HttpResponse> {
  const requestHeaders = { ...RETRIEVER_HEADERS, ...headers }
  const response = await app.inject({
    method,
    url: url.pathname + url.search,
    headers: { ...requestHeaders, host: url.host, 'x-forwarded-proto': 'https' }
  })
  const { 'content-encoding': encoding, ...headersAsDecoded } = response.headers
  return {
    status: response.statusCode,
    statusText: response.statusMessage,
    // Node's axios adapter decompresses and drops Content-Encoding.
    headers: new AxiosHeaders(headersAsDecoded as Record<string, string | string[]>),
    data: decode(response.rawPayload, encoding).toString('utf8'),
    config: { url: url.href, method, headers: new AxiosHeaders(requestHeaders) },
    request: { headers: new AxiosHeaders(requestHeaders) },
    // The certificate is the proxy's: taken as valid, which is what a deployment must ensure.
    verified: true
  }
}

function decode (body: Buffer, encoding: unknown): Buffer {
  switch (encoding) {
    case undefined: return body
    case 'gzip': return gunzipSync(body)
    case 'br': return brotliDecompressSync(body)
    case 'deflate': return inflateSync(body)
    default: throw new Error(`the app answered with an encoding the retriever does not take: ${String(encoding)}`)
  }
}

/** Stores a response's cookies in the session's jar, as the retriever's HttpCookieAgent does (save_cookies_from_header.js). */
export function saveCookies (jar: CookieJar, response: Pick<LightMyRequestResponse, 'headers'> | HttpResponse, url: URL): void {
  for (const cookie of [response.headers['set-cookie'] ?? []].flat()) {
    jar.setCookieSync(String(cookie), url.href, { ignoreError: true })
  }
}

/**
 * What src/retriever/retriever.js would record scanning PUBLIC_ORIGIN + `path`,
 * with the app answering over HTTPS and nothing answering plain HTTP: port 80
 * and its redirect belong to the proxy, so the redirection test is not the
 * app's to pass (it reads `redirection-not-needed-no-http`). robots.txt is not
 * fetched: the retriever fetches it with a client that keeps no cookies, so it
 * changes nothing the tests read.
 */
export async function retrieveFromApp (app: FastifyInstance, path = '/'): Promise<Requests> {
  const requests = new Requests(PUBLIC_HOST)
  // The observatory's own session: its URL, its redirect record and its cookie jar, none of which touch the network.
  const session = new Session(new URL(path, PUBLIC_ORIGIN))
  let url = session.url
  let response: HttpResponse
  for (;;) {
    response = await exchange(app, 'GET', url, {})
    session.redirectHistory.push({ url, status: response.status })
    saveCookies(session.jar, response, url)
    const location = response.headers.location
    if (!REDIRECT_STATUS_CODES.includes(response.status) || session.redirectCount >= MAX_REDIRECTS || typeof location !== 'string') break
    url = new URL(location, url)
    session.redirectCount++
  }
  session.response = response
  requests.session = session
  requests.responses.https = session.response
  requests.responses.auto = session.response
  requests.resources.path = response.data

  // The retriever's CORS preflight, to the last URL of the redirect chain, from the observatory's origin.
  requests.responses.cors = await exchange(app, 'OPTIONS', url, {
    'access-control-request-method': 'GET',
    origin: CONFIG.retriever.corsOrigin
  })
  if (REDIRECT_STATUS_CODES.includes(requests.responses.cors.status)) {
    throw new Error(`the preflight to ${url.href} was redirected: the retriever's client would follow it, and this does not`)
  }

  const html = ['text/html', 'application/xhtml+xml'].includes(String(response.headers['content-type']).split(';')[0] ?? '')
  requests.responses.auto.httpEquiv = html && response.data ? parseHttpEquivHeaders(response.data, session.url.href) : new Map()
  return requests
}

type ScannerModule = typeof import('@mdn/mdn-http-observatory/src/scanner/index.js')
type ConstantsModule = typeof import('@mdn/mdn-http-observatory/src/constants.js')
type CookiesModule = typeof import('@mdn/mdn-http-observatory/src/analyzer/tests/cookies.js')

export interface Observatory {
  /** The observatory's scanner (its tests, scores and grade) on a retrieval made by retrieveFromApp. */
  scan: (requests: Requests) => ReturnType<ScannerModule['scan']>
  /** Every test of the scanner, without the grade: for responses other than the site's front page. */
  runAllTests: (requests: Requests) => Output[]
  cookiesTest: CookiesModule['cookiesTest']
}

const resolve = createRequire(import.meta.url).resolve
const PACKAGE_DIR = dirname(resolve('@mdn/mdn-http-observatory/package.json'))
// Mocks are matched by URL: the scanner imports its retriever by a relative path.
const RETRIEVER = pathToFileURL(join(PACKAGE_DIR, 'src/retriever/retriever.js')).href
const PRELOAD_LIST = join(PACKAGE_DIR, 'conf/hsts-preload.json')

/**
 * The observatory's modules, loaded through tap's mock loader so that the
 * scanner's retriever hands over a prepared retrieval instead of going to the
 * network. The HSTS and redirection tests read Chromium's preload list from
 * conf/hsts-preload.json, which the package's install script downloads and
 * .npmrc keeps from running; where it is missing they get an empty list,
 * which gives the same verdicts for PUBLIC_HOST as the real one.
 */
export async function loadObservatory (t: Test): Promise<Observatory> {
  let prepared: Requests | null = null
  const mocks: Record<string, unknown> = {
    [RETRIEVER]: {
      retrieve: async (hostname: string) => {
        if (prepared?.hostname !== hostname) throw new Error(`no retrieval prepared for ${hostname}`)
        return prepared
      }
    }
  }
  if (!fs.existsSync(PRELOAD_LIST)) {
    mocks.fs = t.createMock(fs, {
      readFileSync: (file: unknown, ...rest: unknown[]) => file === PRELOAD_LIST ? '{}' : Reflect.apply(fs.readFileSync, fs, [file, ...rest])
    })
  }
  const [{ scan }, { ALL_TESTS }, { cookiesTest }] = await Promise.all([
    t.mockImport<ScannerModule>('@mdn/mdn-http-observatory/src/scanner/index.js', mocks),
    t.mockImport<ConstantsModule>('@mdn/mdn-http-observatory/src/constants.js', mocks),
    t.mockImport<CookiesModule>('@mdn/mdn-http-observatory/src/analyzer/tests/cookies.js', mocks)
  ])
  return {
    scan: (requests) => {
      prepared = requests
      return scan(requests.hostname)
    },
    runAllTests: (requests) => ALL_TESTS.map((test) => test(requests)),
    cookiesTest
  }
}
