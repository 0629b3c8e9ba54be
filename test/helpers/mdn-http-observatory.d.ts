// The parts of @mdn/mdn-http-observatory 1.4 the attack suite uses. The package
// is JavaScript typed by JSDoc and ships no declarations; these restate its
// JSDoc (src/types.js, src/scanner/index.js) for what the tests read.

declare module '@mdn/mdn-http-observatory/src/types.js' {
  import type { AxiosResponse } from 'axios'
  import type { Session } from '@mdn/mdn-http-observatory/src/retriever/session.js'

  export type HttpResponse = AxiosResponse & { verified: boolean }
  export type Response = HttpResponse & { httpEquiv?: Map<string, string[]> }
  export interface RedirectEntry { url: URL, status: number }

  export class Requests {
    constructor (hostname: string)
    hostname: string
    resources: { path: string | null }
    responses: {
      auto: Response | null
      cors: HttpResponse | null
      http: HttpResponse | null
      https: HttpResponse | null
      httpRedirects: RedirectEntry[]
      httpsRedirects: RedirectEntry[]
    }
    session: Session | null
  }

  export interface Output {
    expectation: string
    pass: boolean | null
    result: string | null
    scoreDescription: string | null
    scoreModifier: number | null
    data?: unknown
  }
}

declare module '@mdn/mdn-http-observatory/src/retriever/session.js' {
  import type { CookieJar } from 'tough-cookie'
  import type { HttpResponse, RedirectEntry } from '@mdn/mdn-http-observatory/src/types.js'

  export class Session {
    constructor (url: URL, options?: { headers?: string[] })
    url: URL
    jar: CookieJar
    response: HttpResponse | null
    redirectHistory: RedirectEntry[]
    redirectCount: number
  }
}

declare module '@mdn/mdn-http-observatory/src/retriever/utils.js' {
  export function parseHttpEquivHeaders (html: string, baseUrl: string): Map<string, string[]>
}

declare module '@mdn/mdn-http-observatory/src/config.js' {
  export const CONFIG: { retriever: { retrieverUserAgent: string, corsOrigin: string } }
}

declare module '@mdn/mdn-http-observatory/src/constants.js' {
  import type { Output, Requests } from '@mdn/mdn-http-observatory/src/types.js'
  export const ALL_TESTS: Array<(requests: Requests) => Output>
}

declare module '@mdn/mdn-http-observatory/src/analyzer/tests/cookies.js' {
  import type { Output, Requests } from '@mdn/mdn-http-observatory/src/types.js'
  export function cookiesTest (requests: Requests): Output
}

declare module '@mdn/mdn-http-observatory/src/scanner/index.js' {
  import type { Output } from '@mdn/mdn-http-observatory/src/types.js'
  export interface ScanResult {
    scan: {
      algorithmVersion: number
      grade: string
      score: number
      statusCode: number
      testsFailed: number
      testsPassed: number
      testsQuantity: number
      responseHeaders: Record<string, unknown>
    }
    /** Keyed by the test's name, e.g. `content-security-policy`. */
    tests: Record<string, Output>
  }
  export function scan (hostname: string): Promise<ScanResult>
}
