import t from 'tap'
import { isOwnOrigin, trackerOptions } from '../../src/client/tracker-options.js'
import type { PublicEnv } from '../../src/shared/page-data.js'

const ORIGIN = 'https://app.example'

function env (overrides: Partial<Omit<PublicEnv, 'OPENREPLAY_PROJECT_KEY'>> = {}): PublicEnv & { OPENREPLAY_PROJECT_KEY: string } {
  return {
    MODE: 'production',
    ALLOW_INDEXING: true,
    OPENREPLAY_PROJECT_KEY: 'project-key',
    OPENREPLAY_INGEST_POINT: null,
    OPENREPLAY_INSECURE: false,
    STREAM_TIME_LIMIT_MS: 10_000,
    ...overrides
  }
}

t.test('the defaults: the project key, Do Not Track respected, the library\'s own ingest point and secure mode', async (t) => {
  const options = trackerOptions(env(), ORIGIN)
  t.equal(options.projectKey, 'project-key')
  t.equal(options.respectDoNotTrack, true)
  t.notOk('ingestPoint' in options, 'no ingest point: the library uses https://api.openreplay.com/ingest')
  t.notOk('__DISABLE_SECURE_MODE' in options, 'secure mode stays on unless asked')
})

t.test('a self-hosted ingest point and insecure mode come from the env only when set', async (t) => {
  const options = trackerOptions(env({ OPENREPLAY_INGEST_POINT: 'http://127.0.0.1:9000/ingest', OPENREPLAY_INSECURE: true }), ORIGIN)
  t.equal(options.ingestPoint, 'http://127.0.0.1:9000/ingest')
  t.equal(options.__DISABLE_SECURE_MODE, true)
})

t.test('masking stays at the library defaults and nothing but the public env reaches the tracker', async (t) => {
  const options = trackerOptions(env(), ORIGIN)
  for (const key of ['obscureTextNumbers', 'obscureTextEmails', 'obscureInputNumbers', 'obscureInputEmails', 'obscureInputDates', 'defaultInputMode', 'domSanitizer']) {
    t.notOk(key in options, `${key} is left to the library`)
  }
  t.same(Object.keys(options).sort(), ['network', 'projectKey', 'respectDoNotTrack'], 'no user id, metadata, session token or other value')
})

t.test('network capture records no bodies nor cookie headers, and sends the session header only to our origin', async (t) => {
  const network = trackerOptions(env(), ORIGIN).network
  t.equal(network?.capturePayload, false)
  t.same(network?.ignoreHeaders, ['cookie', 'set-cookie', 'authorization'])
  t.equal(network?.sessionTokenHeader, true)
  t.equal(network?.tokenUrlMatcher?.('/resources/theme-switch'), true)
  t.equal(network?.tokenUrlMatcher?.('https://third-party.example/api'), false)
})

t.test('isOwnOrigin: relative URLs are ours, every other origin is not', async (t) => {
  // A blob: URL our page made has our origin (URL spec), and fetching it reaches no server.
  const ours = ['/resources/theme-switch', 'resources/healthcheck?x=1', `${ORIGIN}/api`, `${ORIGIN}`, '//app.example/x', '?q=1', '', 'blob:https://app.example/123']
  const foreign = [
    'https://evil.example/', '//evil.example/x', 'http://app.example/x', 'https://app.example:444/x',
    'https://app.example.evil.example/x', 'https://evil.example/https://app.example', 'https://user@evil.example/',
    'data:text/plain,x', 'blob:https://evil.example/123', 'https://[::1/'
  ]
  for (const url of ours) t.equal(isOwnOrigin(url, ORIGIN), true, `${JSON.stringify(url)} is ours`)
  for (const url of foreign) t.equal(isOwnOrigin(url, ORIGIN), false, `${JSON.stringify(url)} is foreign`)
})
