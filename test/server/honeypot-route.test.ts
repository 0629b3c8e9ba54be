import t from 'tap'
import { ERRORS } from '../../src/server/errors.js'
import type { LightMyRequestResponse } from 'fastify'
import { FLASH_TOAST_COOKIE } from '../../src/server/cookies/flash-toast.js'
import { assertHuman, HONEYPOT_CODES, type HoneypotErrorCode, type HoneypotOptions } from '../../src/server/security/honeypot.js'
import type { HoneyProps } from '../../src/shared/page-data.js'
import { build, pageData, postForm, setCookie } from '../helpers/app.js'

const T0 = 1_750_000_000_000
const OTHER_SECRET = 'another-honeypot-secret-0123456789abcdef0123'
const SENT = 'Thanks, your message was sent.'

type Build = Parameters<typeof build>[0]

/**
 * The app with a form route built here, guarded by the one-call check, and a
 * clock the test moves by hand (the honeypot reads it when rendering and checking).
 */
async function buildForm (test: Build, { secret, honeypot = {} }: { secret?: string, honeypot?: Omit<HoneypotOptions, 'secret'> } = {}) {
  const clock = { now: T0 }
  const built = await build(test, {
    ...(secret ? { env: { HONEYPOT_SECRET: secret } } : {}),
    honeypot: { now: () => clock.now, ...honeypot },
    routes (app) {
      app.post('/test/contact', async (request, reply) => {
        assertHuman(request)
        app.flashToasts.set(reply, { type: 'success', description: SENT })
        return reply.redirect('/', 303)
      })
    }
  })
  return { ...built, clock }
}

/** The honeypot props of a freshly rendered page, as the form on it would carry them. */
async function renderForm (app: Awaited<ReturnType<typeof build>>['app']): Promise<HoneyProps> {
  const page = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  return pageData(page.body).honeyProps
}

/** The fields a person's browser submits for that form. */
function fieldsOf (props: HoneyProps, overrides: Record<string, string> = {}): Record<string, string> {
  return { message: 'Hello', [props.nameFieldName]: '', [props.validFromFieldName]: props.encryptedValidFrom, ...overrides }
}

function postJson (app: Awaited<ReturnType<typeof build>>['app'], fields: Record<string, string>) {
  return app.inject({ method: 'POST', url: '/test/contact', headers: { accept: 'application/json' }, payload: fields })
}

/** Asserts the submission went through: the route's 303 with its flash toast. */
function assertAccepted (test: Pick<typeof t, 'equal' | 'ok'>, response: LightMyRequestResponse) {
  test.equal(response.statusCode, 303, 'accepted')
  test.equal(response.headers.location, '/')
  test.ok(setCookie(response, FLASH_TOAST_COOKIE)?.value, 'and the route ran to its end')
}

/** Asserts the browser's refusal: the 400 bad-request page showing the message, and nothing the route would do. */
function assertRefusedHtml (test: Pick<typeof t, 'equal' | 'match'>, response: LightMyRequestResponse, code: HoneypotErrorCode) {
  test.equal(response.statusCode, 400, `${code}: 400`)
  test.match(response.headers['content-type'], /^text\/html/)
  test.match(response.body, '<title>Bad request | Agent Stack</title>')
  test.match(response.body, `<p role="alert">${ERRORS[code].message}</p>`, 'the message, on the page')
  test.equal(setCookie(response, FLASH_TOAST_COOKIE), undefined, 'the route did not run')
}

/** Asserts the JSON client's refusal: 400 with the same message. */
function assertRefusedJson (test: Pick<typeof t, 'equal' | 'same' | 'match'>, response: LightMyRequestResponse, code: HoneypotErrorCode) {
  test.equal(response.statusCode, 400, `${code}: 400`)
  test.match(response.headers['content-type'], /^application\/json/)
  test.same(response.json(), { statusCode: 400, error: 'Bad Request', message: ERRORS[code].message })
  test.equal(setCookie(response, FLASH_TOAST_COOKIE), undefined, 'the route did not run')
}

t.test('a person’s submission passes, as a form and as JSON', async (t) => {
  const { app, clock } = await buildForm(t)
  const props = await renderForm(app)
  clock.now = T0 + 3000
  assertAccepted(t, await postForm(app, '/test/contact', fieldsOf(props)))
  assertAccepted(t, await postJson(app, fieldsOf(props)))
})

t.test('each refusal is a 400 with its message, for browsers and for JSON clients', async (t) => {
  const { app, clock, logs } = await buildForm(t)
  const props = await renderForm(app)
  const token = props.encryptedValidFrom
  // One character changed in the middle (base64url, so it stays well-formed): the GCM tag no longer matches.
  const middle = Math.floor(token.length / 2)
  const tampered = token.slice(0, middle) + (token[middle] === 'A' ? 'B' : 'A') + token.slice(middle + 1)

  const cases: Array<{ name: string, code: HoneypotErrorCode, fields: Record<string, string>, at: number }> = [
    { name: 'the honeypot field is filled', code: 'HONEYPOT_FILLED', fields: fieldsOf(props, { [props.nameFieldName]: 'Bot' }), at: T0 + 3000 },
    // Regression: remix-utils passes silently when the fields are absent.
    { name: 'both fields are missing', code: 'HONEYPOT_MISSING', fields: { message: 'Hello' }, at: T0 + 3000 },
    { name: 'the timestamp is missing', code: 'TIMESTAMP_MISSING', fields: { message: 'Hello', [props.nameFieldName]: '' }, at: T0 + 3000 },
    { name: 'the timestamp is tampered', code: 'TIMESTAMP_INVALID', fields: fieldsOf(props, { [props.validFromFieldName]: tampered }), at: T0 + 3000 },
    { name: 'the timestamp is in the future', code: 'TIMESTAMP_FUTURE', fields: fieldsOf(props), at: T0 - 60_000 },
    { name: 'submitted too fast', code: 'TOO_FAST', fields: fieldsOf(props), at: T0 + 500 },
    { name: 'the form is too old', code: 'EXPIRED', fields: fieldsOf(props), at: T0 + 25 * 60 * 60 * 1000 }
  ]
  for (const { name, code, fields, at } of cases) {
    await t.test(name, async (t) => {
      clock.now = at
      assertRefusedHtml(t, await postForm(app, '/test/contact', fields), code)
      assertRefusedJson(t, await postJson(app, fields), code)
      // The form's encoding does not matter: a JSON client sending a form body gets JSON too.
      assertRefusedJson(t, await postForm(app, '/test/contact', fields, { accept: 'application/json' }), code)
    })
  }

  // Control: the same rendered form, at a person's pace, passes.
  clock.now = T0 + 3000
  assertAccepted(t, await postForm(app, '/test/contact', fieldsOf(props)))

  const refusals = logs.filter((entry) => (HONEYPOT_CODES as readonly unknown[]).includes(entry.code)).map((entry) => entry.code)
  t.same(refusals, cases.flatMap(({ code }) => [code, code, code]), 'each refusal is logged with its code (the client only sees the message)')
})

t.test('tests may turn the timing off', async (t) => {
  const { app, clock } = await buildForm(t, { honeypot: { timing: false } })
  const props = await renderForm(app)
  assertAccepted(t, await postForm(app, '/test/contact', fieldsOf(props)))
  clock.now = T0 - 60_000
  assertAccepted(t, await postForm(app, '/test/contact', fieldsOf(props)))
  assertRefusedHtml(t, await postForm(app, '/test/contact', fieldsOf(props, { [props.nameFieldName]: 'Bot' })), 'HONEYPOT_FILLED')
})

t.test('a form rendered by one instance passes on another with the same secret, and fails with another secret', async (t) => {
  const renderer = await buildForm(t)
  const sibling = await buildForm(t)
  const stranger = await buildForm(t, { secret: OTHER_SECRET })
  const props = await renderForm(renderer.app)
  sibling.clock.now = stranger.clock.now = T0 + 3000
  assertAccepted(t, await postForm(sibling.app, '/test/contact', fieldsOf(props)))
  assertRefusedHtml(t, await postForm(stranger.app, '/test/contact', fieldsOf(props)), 'TIMESTAMP_INVALID')
  assertRefusedJson(t, await postJson(stranger.app, fieldsOf(props)), 'TIMESTAMP_INVALID')
})
