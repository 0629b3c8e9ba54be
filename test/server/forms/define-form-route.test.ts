import type { LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { Type } from 'typebox'
import { ERRORS, SEND_AGAIN } from '../../../src/server/errors.js'
import { FLASH_TOAST_COOKIE } from '../../../src/server/cookies/flash-toast.js'
import { defineFormRoute } from '../../../src/server/forms/define-form-route.js'
import { defineAction, defineLoader, type ScreenAction } from '../../../src/server/screens/index.js'
import { UNEXPECTED_FIELDS } from '../../../src/server/forms/form-schema.js'
import type { HoneypotOptions } from '../../../src/server/security/honeypot.js'
import { build, pageData, postForm, setCookie } from '../../helpers/app.js'
import { scrape, valueOf } from '../../helpers/metrics.js'
import { renderedHoneypot, withHoneypot } from '../../helpers/forms.js'
import { screen } from '../../helpers/screens.js'
import { defineScreen } from '../../../src/ui/define-screen.js'
import { CONTACT_PATH } from '../../fixtures/contact-form/contact.js'
import { CONTACT_ID, contactScreens } from '../../fixtures/contact-form/screens.js'
import { TAKEN_EMAIL, TOPICS, VALID_ANSWERS, WRONG_ANSWERS, WRONG_MESSAGES, type Contact } from '../../fixtures/contact-form/contact.server.js'

const T0 = 1_750_000_000_000
/** What the site's own form sends besides its fields, as Chromium does (inject's Host is localhost:80). */
const SAME_ORIGIN = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' }

const VALID = VALID_ANSWERS
const WRONG = WRONG_ANSWERS
const SECRET = WRONG_ANSWERS.password!

type Build = Parameters<typeof build>[0]

/** The app with the contact page, its loader and its form route; the honeypot's clock moved by hand. */
async function buildContact (test: Build, { env, honeypot = {} }: { env?: Record<string, string>, honeypot?: Omit<HoneypotOptions, 'secret'> } = {}) {
  const clock = { now: T0 }
  const received: Contact[] = []
  const built = await build(test, {
    ...(env ? { env } : {}),
    screens: contactScreens({ received }),
    honeypot: { now: () => clock.now, ...honeypot }
  })
  const props = await renderedHoneypot(built.app, CONTACT_PATH)
  clock.now = T0 + 3000
  const post = (answers: Record<string, string | string[]>, headers: Record<string, string> = {}) =>
    postForm(built.app, CONTACT_PATH, withHoneypot(props, answers), { ...SAME_ORIGIN, ...headers })
  const postJson = (answers: Record<string, unknown>, headers: Record<string, string> = {}) => built.app.inject({
    method: 'POST',
    url: CONTACT_PATH,
    headers: { accept: 'application/json', 'content-type': 'application/json', ...SAME_ORIGIN, ...headers },
    payload: JSON.stringify({ ...answers, [props.nameFieldName]: '', [props.validFromFieldName]: props.encryptedValidFrom })
  })
  return { ...built, clock, props, received, post, postJson }
}

/** The refused answer changed nothing: the handler did not run and no toast or cookie was set. */
function assertNothingDone (test: Test, response: LightMyRequestResponse, received: Contact[]) {
  test.same(received, [], 'the handler did not run')
  test.equal(setCookie(response, FLASH_TOAST_COOKIE), undefined, 'no flash toast')
  test.equal(setCookie(response, 'contacted'), undefined, 'no cookie of the handler')
  test.equal(response.headers.location, undefined, 'no redirect')
}

/** The control of the field named `name` in a rendered page: its tag, as React wrote it. */
function control (html: string, name: string): string {
  const tag = new RegExp(`<(input|textarea|select)[^>]*\\bname="${name}"[^>]*>`).exec(html)
  if (!tag) throw new Error(`no control named ${name}`)
  return tag[0]
}

t.test('a person\'s answers reach the handler, typed as the schema says; the browser gets a 303 and a toast', async (t) => {
  const { post, received } = await buildContact(t)
  const response = await post(VALID)
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, CONTACT_PATH, 'back to the form\'s page by default')
  t.equal(response.headers['cache-control'], 'no-store')
  t.equal(response.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", 'a redirect is no document: an answer\'s headers')
  t.equal(response.headers['cross-origin-opener-policy'], undefined)
  t.match(response.headers.vary, /Accept/)
  t.same(received, [{ ...VALID, age: 36, terms: true }], 'digits read as a number, a ticked box as true')
  t.ok(setCookie(response, FLASH_TOAST_COOKIE)?.value, 'the flash toast is set')
  t.equal(response.headers['clear-site-data'], '"prefetchCache", "prerenderCache"', 'pages fetched ahead before the action are dropped, nothing else')
  const cookie = setCookie(response, 'contacted')
  t.equal(cookie?.value, 'yes')
  t.same({ path: cookie?.path, httpOnly: cookie?.httpOnly, sameSite: cookie?.sameSite, secure: cookie?.secure }, { path: '/', httpOnly: true, sameSite: 'Lax', secure: undefined }, 'the app\'s attributes, not Secure outside production')
})

t.test('a handler\'s own Clear-Site-Data (a sign-out clearing the cache) is kept beside the speculations\'', async (t) => {
  const account = screen(defineScreen({ path: '/account', component: () => null }), {
    loader: defineLoader<null>(({ request, reply }) => request.cookies.session === undefined ? reply.redirect('/sign-in', 303) : null),
    action: defineAction({
      path: '/account/sign-out',
      schema: Type.Object({}),
      handle ({ reply }) {
        // What the visitor's browser kept of their private pages goes with the session.
        reply.header('Clear-Site-Data', '"cache"')
        return { redirectTo: '/' }
      }
    })
  })
  const { app } = await build(t, { screens: { account }, honeypot: { timing: false } })
  // The form is on a page behind sign-in: its honeypot comes from the page a signed-in visitor sees.
  const signOut = await postForm(app, '/account/sign-out', withHoneypot(await renderedHoneypot(app, '/account', { session: 'ada' }), {}), SAME_ORIGIN)
  t.equal(signOut.statusCode, 303)
  t.equal(signOut.headers['clear-site-data'], '"cache", "prefetchCache", "prerenderCache"', 'both, in one header')
})

t.test('the next page shows the toast once', async (t) => {
  const { app, post } = await buildContact(t)
  const response = await post(VALID)
  const toast = setCookie(response, FLASH_TOAST_COOKIE)!
  const next = await app.inject({ url: response.headers.location as string, headers: { accept: 'text/html', cookie: `${toast.name}=${toast.value}` } })
  t.match(pageData(next.body).toast, { type: 'success', title: 'Message sent', description: 'Thanks, Ada Lovelace. We will reply soon.' })
})

t.test('in production the cookies are Secure, from configuration', async (t) => {
  const { post } = await buildContact(t, { env: { NODE_ENV: 'production' } })
  const response = await post(VALID)
  t.equal(response.statusCode, 303)
  t.equal(setCookie(response, 'contacted')?.secure, true, 'the handler\'s cookie')
  t.equal(setCookie(response, `__Host-${FLASH_TOAST_COOKIE}`)?.secure, true, 'the flash toast')
})

t.test('a script asking for JSON gets 200 with where a browser would go and the toast', async (t) => {
  const { post, postJson, received } = await buildContact(t)
  for (const response of [await post(VALID, { accept: 'application/json' }), await postJson({ ...VALID, age: 36, terms: true })]) {
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.match(response.json(), { ok: true, redirectTo: CONTACT_PATH, toast: { type: 'success', title: 'Message sent' } })
    t.equal(response.headers.location, undefined)
    t.ok(setCookie(response, FLASH_TOAST_COOKIE), 'the toast also waits for the next page, where the form kit goes')
    t.equal(response.headers['clear-site-data'], '"prefetchCache", "prerenderCache"', 'and no page fetched ahead before the action is shown instead')
  }
  t.equal(received.length, 2)
})

t.test('with additionalProperties: false, the honeypot fields still reach the honeypot and do not count as extra', async (t) => {
  const { post, received, props } = await buildContact(t)
  t.equal((await post(VALID)).statusCode, 303, 'a person gets through (not HONEYPOT_MISSING, not an unexpected field)')
  const filled = await post({ ...VALID, [props.nameFieldName]: 'bot' })
  t.equal(filled.statusCode, 400)
  t.match(filled.body, 'a field meant to stay empty was filled in', 'the trap was read: HONEYPOT_FILLED, not missing')
  const extra = await post({ ...VALID, admin: 'true' }, { accept: 'application/json' })
  t.equal(extra.statusCode, 422, 'a field the schema does not have is still refused')
  t.equal(extra.headers['clear-site-data'], undefined, 'a refusal changed nothing: pages fetched ahead stay')
  t.same(extra.json().errors, {})
  t.equal(extra.json().message, UNEXPECTED_FIELDS)
  t.equal(received.length, 1)
})

t.test('a field the schema does not name: the visitor is asked to reload, the log names the field for the engineer', async (t) => {
  // Regression: the line said only `fields: []`, and a `<Field name='tag'>` missing from the schema could not be found.
  const { post, logs, received } = await buildContact(t)
  const page = await post({ ...VALID, tag: 'news' })
  t.equal(page.statusCode, 422)
  t.equal(pageData(page.body).page.form?.message, UNEXPECTED_FIELDS, 'the visitor\'s message is unchanged')
  const json = await post({ ...VALID, tag: 'news' }, { accept: 'application/json' })
  t.same(json.json(), { statusCode: 422, error: 'Unprocessable Content', message: UNEXPECTED_FIELDS, errors: {} }, 'a script is told no more than a person')
  const refusals = logs.filter((line) => line.code === 'FORM_INVALID')
  t.equal(refusals.length, 2)
  for (const line of refusals) t.match(line, { level: 30, msg: UNEXPECTED_FIELDS, fields: [], unexpectedFields: ['tag'], unexpectedFieldCount: 1 })
  t.notMatch(JSON.stringify(logs), 'news', 'the name, never the answer')

  await post({ ...WRONG, tag: 'news' })
  t.match(logs.filter((line) => line.code === 'FORM_INVALID').at(-1), { fields: Object.keys(WRONG_MESSAGES), unexpectedFields: ['tag'] }, 'named beside wrong fields too, so it is found on the first try')
  t.same(received, [])
})

t.test('the unexpected names a hostile client sends are logged a few and cut short, with how many there were', async (t) => {
  const { post, logs } = await buildContact(t)
  const extra = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f${index}-${'x'.repeat(1000)}`, 'y']))
  t.equal((await post({ ...VALID, ...extra })).statusCode, 422)
  const line = logs.find((entry) => entry.code === 'FORM_INVALID')
  const names = (line?.unexpectedFields ?? []) as string[]
  t.same(names.map((name) => name.slice(0, 3)), ['f0-', 'f1-', 'f2-', 'f3-', 'f4-'], 'the first five')
  t.ok(names.every((name) => name.length <= 41 && name.endsWith('…')), 'each cut at 40 characters, marked as cut')
  t.equal(line?.unexpectedFieldCount, 30)
  t.ok(JSON.stringify(line).length < 1000, 'the line stays a line, where the names alone were 30 KB')
})

t.test('a route schema that names only the form\'s fields refuses the honeypot\'s (why the helper reads the body itself)', async (t) => {
  const { app } = await build(t, {
    routes (app) {
      app.post('/naive', { schema: { body: Type.Object({ message: Type.String() }, { additionalProperties: false }) } }, async (request) => request.body)
    }
  })
  const props = await renderedHoneypot(app)
  const response = await postForm(app, '/naive', withHoneypot(props, { message: 'Hello' }), { accept: 'application/json' })
  t.equal(response.statusCode, 400, 'refused before any handler could check them')
  t.equal(response.json().message, 'The request is not valid.')
})

const NOTE_ACTION_PATH = '/test/contact/send'
const NoteSchema = Type.Object({ note: Type.String({ minLength: 2 }) })

/** The contact page with a form of one field at an address of its own, run by `handle`; the honeypot's clock not checked. */
async function buildNoteAction (test: Build, handle: ScreenAction<typeof NoteSchema>['handle']) {
  const { app } = await build(test, { screens: contactScreens({ action: defineAction({ path: NOTE_ACTION_PATH, schema: NoteSchema, handle }) }), honeypot: { timing: false } })
  const props = await renderedHoneypot(app, CONTACT_PATH)
  return (answers: Record<string, string>) => postForm(app, NOTE_ACTION_PATH, withHoneypot(props, answers))
}

t.test('without JavaScript, wrong answers get the same page again (422): each message by its field, what was typed kept, the secret not', async (t) => {
  const { app, post, received, logs, props } = await buildContact(t)
  const response = await post(WRONG)
  t.equal(response.statusCode, 422)
  t.match(response.headers['content-type'], /^text\/html/)
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.body, '<title>Contact us | Agent Stack</title>', 'the form\'s own page')
  t.match(response.headers['content-security-policy'], /script-src 'self' 'nonce-/, 'a page: the documents\' policy, its scripts allowed by a nonce')
  t.equal(response.headers['cross-origin-opener-policy'], 'same-origin', 'and the documents\' other headers')
  assertNothingDone(t, response, received)

  const { page, honeyProps } = pageData(response.body)
  t.same(page.data, { topics: TOPICS }, 'the page\'s loader ran again for it')
  t.same(page.form?.errors, WRONG_MESSAGES)
  t.equal(page.form?.message, ERRORS.FORM_INVALID.message)
  t.equal(page.form?.action, CONTACT_PATH)
  t.same(page.form?.values, { name: '', email: 'ada at example', age: '12', topic: '', message: 'Hi <b>' }, 'as typed, as text')
  t.notMatch(response.body, SECRET, 'the password is nowhere in the page')
  t.not(honeyProps.encryptedValidFrom, props.encryptedValidFrom, 'a fresh honeypot timestamp for the next try')
  t.same(page.form?.fields, { [props.validFromFieldName]: props.encryptedValidFrom }, 'yet the form sends again the token the honeypot accepted: corrected at once, it is not too fast')

  t.match(control(response.body, 'email'), 'value="ada at example"')
  t.match(control(response.body, 'message'), /<textarea/)
  t.match(response.body, /<textarea[^>]*>Hi &lt;b&gt;<\/textarea>/, 'escaped, not markup')
  t.notMatch(control(response.body, 'password'), 'value=', 'the password box is empty')
  t.match(response.body, '<option value="feedback">Feedback</option>', 'the select, with the loader\'s topics')
  for (const [name, message] of Object.entries(WRONG_MESSAGES)) {
    const tag = control(response.body, name)
    t.match(tag, 'aria-invalid="true"', `${name} is marked invalid`)
    const describedBy = /aria-describedby="([^"]*)"/.exec(tag)?.[1] ?? ''
    const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))
    t.ok(errorId, `${name} is described by its message`)
    t.match(response.body, new RegExp(`<p id="${errorId}" class="field-error"><span class="visually-hidden">Error: </span>${message.replace(/[.]/g, '\\.')}</p>`), `${name}: "${message}"`)
    t.match(response.body, `<a href="#${tag.match(/id="([^"]*)"/)?.[1]}">${message}</a>`, `${name}: linked from the summary`)
  }
  t.match(response.body, /<div class="form-summary" tabindex="-1" autofocus="">/, 'the summary takes focus as the page loads')
  t.notMatch(response.body, /\/email|must NOT|must match|instancePath/, 'no validator wording or path')

  const entry = logs.find((line) => line.code === 'FORM_INVALID')
  t.same(entry?.fields, Object.keys(WRONG_MESSAGES), 'the log names the fields')
  t.notMatch(JSON.stringify(logs), 'ada at example', 'and never what was typed')
  await t.test('a visitor who then opens the page gets an empty form', async (t) => {
    const fresh = await app.inject({ url: CONTACT_PATH, headers: { accept: 'text/html' } })
    t.equal(fresh.statusCode, 200)
    t.equal(pageData(fresh.body).page.form, undefined)
    t.notMatch(fresh.body, 'ada at example')
    t.notMatch(fresh.body, 'aria-invalid')
  })
})

t.test('a script gets the same messages as JSON (422), and nothing it sent back', async (t) => {
  const { post, postJson, received } = await buildContact(t)
  for (const response of [await post(WRONG, { accept: 'application/json' }), await postJson({ ...WRONG, age: 12, terms: false })]) {
    t.equal(response.statusCode, 422)
    t.equal(response.headers['cache-control'], 'no-store')
    const body = response.json()
    t.same(Object.keys(body).sort(), ['error', 'errors', 'message', 'statusCode'])
    t.match(body, { statusCode: 422, error: 'Unprocessable Content', message: ERRORS.FORM_INVALID.message })
    t.notMatch(response.body, SECRET)
    t.notMatch(response.body, 'ada at example')
    assertNothingDone(t, response, received)
  }
  const json = (await postJson({ ...WRONG, age: 12, terms: false })).json()
  t.same(json.errors, WRONG_MESSAGES)
  const empty = (await postJson({ name: 'Ada' })).json()
  t.same(empty.errors, { email: 'This field is required.', topic: 'Choose a topic', message: 'This field is required.', password: 'Choose a password', terms: 'Tick the box to accept the terms' }, 'missing fields, from JSON')
})

t.test('a script\'s JSON is read as sent: text is no number and "on" no tick, as they would be from a form', async (t) => {
  const { postJson, received } = await buildContact(t)
  const typedAsText = await postJson({ ...VALID, terms: true })
  t.equal(typedAsText.statusCode, 422)
  t.same(typedAsText.json().errors, { age: WRONG_MESSAGES.age }, 'the age "36" is text')
  t.same((await postJson({ ...VALID, age: 36 })).json().errors, { terms: WRONG_MESSAGES.terms }, 'the terms "on" are text')
  t.equal((await postJson({ ...VALID, age: 36, terms: true })).statusCode, 200, 'typed, they pass')
  t.equal(received.length, 1)
})

t.test('an empty box counts as no answer, and an optional one may stay empty', async (t) => {
  const { post, received } = await buildContact(t)
  const response = await post({ ...VALID, age: '', password: '' }, { accept: 'application/json' })
  t.same(response.json().errors, { password: 'Choose a password' }, 'the required password is missing; the optional age is fine')
  t.equal((await post({ ...VALID, age: '' })).statusCode, 303)
  t.equal(received[0]?.age, undefined)
})

t.test('a repeated answer for a one-answer field is refused with a plain message', async (t) => {
  const { post } = await buildContact(t)
  const response = await post({ ...VALID, name: ['Ada', 'Bob'] }, { accept: 'application/json' })
  t.equal(response.statusCode, 422)
  t.same(response.json().errors, { name: 'Enter your name' })
  const page = await post({ ...VALID, email: ['a@example.com', 'b@example.com'] })
  t.same(pageData(page.body).page.form?.errors, { email: 'Give one answer.' })
  t.same(pageData(page.body).page.form?.values.email, ['a@example.com', 'b@example.com'])
  t.match(control(page.body, 'email'), 'value="a@example.com"', 'the first is shown again')
})

t.test('the handler may refuse answers too: the same 422, with its message', async (t) => {
  const { post } = await buildContact(t)
  const page = await post({ ...VALID, email: TAKEN_EMAIL })
  t.equal(page.statusCode, 422)
  t.same(pageData(page.body).page.form?.errors, { email: 'This address is already registered' })
  t.equal(pageData(page.body).page.form?.values.name, 'Ada Lovelace')
  t.match(page.body, '<option value="question" selected="">', 'the chosen topic, chosen again')
  t.match(control(page.body, 'terms'), 'checked=""', 'the box, ticked again')
  t.match(control(page.body, 'age'), 'value="36"')
  t.notMatch(control(page.body, 'password'), 'value=')
  const json = await post({ ...VALID, email: TAKEN_EMAIL }, { accept: 'application/json' })
  t.same(json.json().errors, { email: 'This address is already registered' })
  t.equal(setCookie(page, FLASH_TOAST_COOKIE), undefined)
})

t.test('a honeypot refusal is a 400: the form again with a message and the answers for a browser, the message and a fresh token for a script', async (t) => {
  const { app, post, postJson, received, clock, props, logs } = await buildContact(t)
  clock.now = T0 + 500
  const page = await post(VALID)
  t.equal(page.statusCode, 400)
  const { form } = pageData(page.body).page
  t.equal(form?.message, ERRORS.TOO_FAST.message, 'too fast, said so a person understands')
  t.same(form?.errors, {})
  t.equal(form?.values.message, VALID.message, 'nothing typed is lost')
  t.notMatch(page.body, VALID.password)
  t.match(page.body, `<p>${ERRORS.TOO_FAST.message}</p>`)
  assertNothingDone(t, page, received)
  const json = await postJson(VALID)
  t.equal(json.statusCode, 400)
  const { fields, ...refusal } = json.json()
  t.same(refusal, { statusCode: 400, error: 'Bad Request', message: ERRORS.TOO_FAST.message, errors: {} })
  t.same(Object.keys(fields), [props.validFromFieldName], 'and a fresh token for the form in the page')
  clock.now = T0 + 6000
  const again = await postForm(app, CONTACT_PATH, withHoneypot({ ...props, encryptedValidFrom: fields[props.validFromFieldName] }, VALID), { ...SAME_ORIGIN, accept: 'application/json' })
  t.equal(again.statusCode, 200, 'with which sending again works')
  received.length = 0

  clock.now = T0 + 3000
  const filled = await post({ ...VALID, [props.nameFieldName]: 'https://spam.example' })
  t.equal(filled.statusCode, 400)
  t.equal(pageData(filled.body).page.form?.message, 'The form could not be sent because a field meant to stay empty was filled in. Please send it again.', 'not "reload": the form shown is a fresh one')
  const missing = await postForm((await buildContact(t)).app, CONTACT_PATH, VALID, SAME_ORIGIN)
  t.equal(missing.statusCode, 400)
  t.equal(pageData(missing.body).page.form?.message, 'The form could not be verified. Please send it again.')
  clock.now = T0 + 25 * 60 * 60 * 1000
  t.equal(pageData((await post(VALID)).body).page.form?.message, 'This form had expired. Please check your answers and send it again.')
  t.same(logs.filter((line) => typeof line.code === 'string' && line.code !== 'FORM_INVALID').map((line) => line.code), ['TOO_FAST', 'TOO_FAST', 'HONEYPOT_FILLED', 'EXPIRED'], 'each refusal logged with its code')
  t.same(received, [])
})

t.test('a form route\'s honeypot refusals are counted in the metrics, the browser\'s page as much as the script\'s JSON', async (t) => {
  const { app, post, postJson, clock, props } = await buildContact(t, { env: { METRICS_PORT: '0' } })
  clock.now = T0 + 500
  t.equal((await post(VALID)).statusCode, 400)
  t.equal((await postJson(VALID)).statusCode, 400)
  clock.now = T0 + 3000
  t.equal((await post({ ...VALID, [props.nameFieldName]: 'https://spam.example' })).statusCode, 400)
  const samples = await scrape(app)
  t.equal(valueOf(samples, 'honeypot_rejections_total', { reason: 'TOO_FAST' }), 2)
  t.equal(valueOf(samples, 'honeypot_rejections_total', { reason: 'HONEYPOT_FILLED' }), 1)
})

t.test('a body that is not an object of fields is a 400', async (t) => {
  const { app, received } = await buildContact(t)
  for (const payload of ['[]', '"text"', '42', 'null']) {
    const response = await app.inject({ method: 'POST', url: CONTACT_PATH, headers: { 'content-type': 'application/json', accept: 'application/json' }, payload })
    t.equal(response.statusCode, 400, payload)
    t.equal(response.json().message, ERRORS.FORM_NOT_AN_OBJECT.message)
  }
  const broken = await app.inject({ method: 'POST', url: CONTACT_PATH, headers: { 'content-type': 'application/json', accept: 'text/html' }, payload: '{"name":' })
  t.equal(broken.statusCode, 400)
  t.match(broken.body, ERRORS.FST_ERR_CTP_INVALID_JSON_BODY.message)
  t.same(received, [])
})

t.test('answers nested deeper than any field holds are no answer: the page again (4xx), never a 500 or an error in the log', async (t) => {
  // Regression: keeping the answers for the page recursed into them, and 4000 nested lists overflowed the stack (500).
  const { app, props, received, logs } = await buildContact(t)
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
  const honeypot = JSON.stringify(withHoneypot(props, {})).slice(1, -1)
  const post = (fields: string) => app.inject({ method: 'POST', url: CONTACT_PATH, headers: { ...SAME_ORIGIN, 'content-type': 'application/json', accept: 'text/html' }, payload: `{${fields}}` })

  const refused = await post(`${honeypot},"name":${deep},"email":"ada@example.com"`)
  t.equal(refused.statusCode, 422, 'the schema\'s refusal: the form again')
  const { form } = pageData(refused.body).page
  t.equal(form?.errors.name, 'Enter your name', 'the field\'s own message')
  t.same(form?.values, { email: 'ada@example.com' }, 'the nested answer is not kept; the others are')

  const unverified = await post(`"name":${deep}`)
  t.equal(unverified.statusCode, 400, 'a honeypot refusal keeps the answers too')
  t.equal(pageData(unverified.body).page.form?.message, 'The form could not be verified. Please send it again.')

  t.same(logs.filter((line) => line.level >= 50), [], 'nothing logged as an error')
  t.same(received, [])
})

t.test('another site\'s post is a 403 before anything is read', async (t) => {
  const { post, received } = await buildContact(t)
  const sites: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }]
  for (const headers of sites) {
    const page = await post(VALID, headers)
    t.equal(page.statusCode, 403, JSON.stringify(headers))
    t.match(page.body, '<title>Forbidden | Agent Stack</title>')
    t.match(page.body, ERRORS.CROSS_SITE.message)
    const json = await post(VALID, { ...headers, accept: 'application/json' })
    t.same(json.json(), { statusCode: 403, error: 'Forbidden', message: ERRORS.CROSS_SITE.message })
    assertNothingDone(t, json, received)
  }
})

t.test('a body that is neither a form nor JSON, or is in a charset other than UTF-8, is a 415, a too large one a 413', async (t) => {
  let handled = 0
  const { app } = await build(t, {
    screens: contactScreens({ action: defineAction({ schema: Type.Object({ note: Type.String() }), bodyLimit: 1024, handle () { handled++ } }) })
  })
  for (const type of ['text/plain', 'multipart/form-data; boundary=x', 'application/xml']) {
    const response = await app.inject({ method: 'POST', url: CONTACT_PATH, headers: { 'content-type': type, accept: 'application/json' }, payload: 'note=hi' })
    t.equal(response.statusCode, 415, type)
    t.equal(response.json().message, ERRORS.FST_ERR_CTP_INVALID_MEDIA_TYPE.message)
  }
  for (const type of ['application/x-www-form-urlencoded; charset=utf-16', 'application/json; charset=iso-8859-1']) {
    const response = await app.inject({ method: 'POST', url: CONTACT_PATH, headers: { 'content-type': type, accept: 'application/json' }, payload: 'note=hi' })
    t.equal(response.statusCode, 415, type)
    t.equal(response.json().message, ERRORS.CHARSET_NOT_ACCEPTED.message)
  }
  const large = await postForm(app, CONTACT_PATH, { note: 'x'.repeat(2000) }, { accept: 'application/json' })
  t.equal(large.statusCode, 413, 'the route\'s own limit')
  t.equal(handled, 0)
})

t.test('a refused form is never kept by the render cache, nor shown to anyone else', async (t) => {
  const { app, post } = await buildContact(t)
  // Rendered once by buildContact; the render cache keeps a document asked for a second time.
  await app.inject({ url: CONTACT_PATH, headers: { accept: 'text/html' } })
  const before = app.renderCache.size
  t.ok(before > 0, 'the page itself was kept once asked for again')
  const first = await post({ ...WRONG, name: 'Visitor A' })
  const second = await post({ ...WRONG, name: 'Visitor A' })
  t.equal(first.statusCode, 422)
  t.equal(second.statusCode, 422)
  t.equal(app.renderCache.size, before, 'neither refusal added a document')
  const other = await app.inject({ url: CONTACT_PATH, headers: { accept: 'text/html' } })
  t.notMatch(other.body, 'Visitor A', 'another visitor\'s page holds nothing of it')
  t.equal(app.renderCache.size, before, 'and is the page cached before, from the cache')
})

t.test('the page of a refused form returns the theme switch to the form\'s page', async (t) => {
  const { post } = await buildContact(t)
  const page = await post(WRONG)
  t.match(page.body, `<input type="hidden" name="redirectTo" value="${CONTACT_PATH}"/>`)
  t.equal(pageData(page.body).requestInfo.path, CONTACT_PATH)
})

t.test('the form route shares its address with its page: GET shows it, POST sends it, anything else is a 405', async (t) => {
  const { app } = await buildContact(t)
  t.equal((await app.inject({ url: CONTACT_PATH, headers: { accept: 'text/html' } })).statusCode, 200)
  const put = await app.inject({ method: 'PUT', url: CONTACT_PATH })
  t.equal(put.statusCode, 405)
  t.equal(put.headers.allow, 'GET, HEAD, POST')
})

t.test('a form route on an address of its own goes back to its page after success', async (t) => {
  const send = await buildNoteAction(t, () => undefined)
  const sent = await send({ note: 'hello' })
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, CONTACT_PATH)
  const refused = await send({ note: 'x' })
  t.equal(refused.statusCode, 422)
  t.equal(pageData(refused.body).page.form?.action, NOTE_ACTION_PATH, 'the state names the action, for the form that posts there')
  t.equal(pageData(refused.body).requestInfo.path, CONTACT_PATH, 'the theme switch returns to the page, not to the action')
})

t.test('a handler that finds nothing wrong may say so with empty errors: the form succeeds', async (t) => {
  const send = await buildNoteAction(t, () => ({ errors: {} }))
  const sent = await send({ note: 'hello' })
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, CONTACT_PATH)
})

t.test('a cookie a handler sets takes the app\'s attributes, but its own options win', async (t) => {
  const send = await buildNoteAction(t, ({ setCookie }) => { setCookie('note-seen', 'yes', { httpOnly: false, maxAge: 60 }) })
  const sent = await send({ note: 'hello' })
  t.match(setCookie(sent, 'note-seen'), { value: 'yes', path: '/', sameSite: 'Lax', maxAge: 60 })
  t.notOk(setCookie(sent, 'note-seen')?.httpOnly, 'readable by the page, as the handler asked')
})

// A refusal shows the page again by running its loader with the form route's parameters: a form at /save/:noteId
// gave the loader of /notes/:id no id, and a refused form was a 500.
t.test('a form whose path lacks a parameter of its page\'s path stops start-up, naming both', async (t) => {
  const note = async (path: string) => {
    const server = await import('../../fixtures/note-form/note.server.js')
    return { loader: server.loader, action: { ...server.action, path } }
  }
  const screens = (path: string) => ({ note: { view: () => import('../../fixtures/note-form/note.js'), server: () => note(path) } })
  await t.rejects(build(t, { screens: screens('/save/:noteId') }), { message: 'the screen "note": its action: the form posts to /save/:noteId, which lacks :id of its page\'s path /notes/:id: a refused form shows the page again, its loader reading the form\'s parameters; give the form\'s path the same ones' })
  const { app } = await build(t, { honeypot: { timing: false }, screens: screens('/notes/:id/save') })
  const props = await renderedHoneypot(app, '/notes/42')
  const refused = await postForm(app, '/notes/42/save', withHoneypot(props, { text: '' }))
  t.equal(refused.statusCode, 422, 'a path that carries them is taken')
  t.match(refused.body, '<h1>Note 42</h1>', 'and its refusal shows the note posted from')
  const sent = await postForm(app, '/notes/42/save', withHoneypot(props, { text: 'hello' }))
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, '/', 'success at an address of its own goes home: never to the action, which answers no GET')
})

t.test('on a page with a parameter in its address, success goes back to that page: the note posted from', async (t) => {
  const { app } = await build(t, { honeypot: { timing: false }, screens: { note: { view: () => import('../../fixtures/note-form/note.js'), server: () => import('../../fixtures/note-form/note.server.js') } } })
  const props = await renderedHoneypot(app, '/notes/42')
  const sent = await postForm(app, '/notes/42?from=list', withHoneypot(props, { text: 'hello' }), SAME_ORIGIN)
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, '/notes/42')
  const json = await app.inject({ method: 'POST', url: '/notes/42', headers: { accept: 'application/json', 'content-type': 'application/json', ...SAME_ORIGIN }, payload: JSON.stringify(withHoneypot(props, { text: 'hello' })) })
  t.equal(json.json().redirectTo, '/notes/42', 'and says so to a script')
})

t.test('a redirect the handler asks for stays on this site', async (t) => {
  const { app } = await build(t, {
    screens: contactScreens({ action: defineAction({ schema: Type.Object({ to: Type.String() }), handle: ({ values }) => ({ redirectTo: values.to }) }) }),
    honeypot: { timing: false }
  })
  const props = await renderedHoneypot(app, CONTACT_PATH)
  const targets: Array<[string, string]> = [['/thanks?x=1', '/thanks?x=1'], ['https://evil.example', '/'], ['//evil.example', '/']]
  for (const [to, location] of targets) {
    t.equal((await postForm(app, CONTACT_PATH, withHoneypot(props, { to }))).headers.location, location, to)
  }
})

t.test('a handler that answers itself has the last word', async (t) => {
  const { app, logs } = await build(t, {
    screens: contactScreens({ action: defineAction({ schema: Type.Object({ note: Type.String() }), handle: ({ reply }) => { reply.code(202).send('queued') } }) }),
    honeypot: { timing: false }
  })
  const props = await renderedHoneypot(app, CONTACT_PATH)
  const response = await postForm(app, CONTACT_PATH, withHoneypot(props, { note: 'hello' }))
  t.equal(response.statusCode, 202)
  t.equal(response.body, 'queued')
  t.equal(response.headers.location, undefined)
  t.same(logs.filter((line) => line.level >= 40), [], 'nothing sent twice')
})

t.test('a schema is closed unless the form says why: unknown fields, `__proto__` and `constructor` are refused, the values have no prototype', async (t) => {
  const seen: unknown[] = []
  const { app } = await build(t, {
    screens: contactScreens({ action: defineAction({ schema: Type.Object({ note: Type.String() }), handle: ({ values }) => { seen.push(values) } }) }),
    honeypot: { timing: false }
  })
  const props = await renderedHoneypot(app, CONTACT_PATH)
  const json = (body: string) => app.inject({ method: 'POST', url: CONTACT_PATH, headers: { ...SAME_ORIGIN, 'content-type': 'application/json', accept: 'application/json' }, payload: body })
  const honeypot = JSON.stringify(withHoneypot(props, {})).slice(1, -1)
  for (const extra of ['"isAdmin":true', '"constructor":"x"', '"nested":{"a":1}']) {
    const response = await json(`{${honeypot},"note":"hi",${extra}}`)
    t.equal(response.statusCode, 422, extra)
    t.equal(response.json().message, UNEXPECTED_FIELDS)
  }
  t.equal((await json(`{${honeypot},"note":"hi","__proto__":[1]}`)).statusCode, 400, 'Fastify\'s JSON parser refuses __proto__ itself')
  for (const extra of ['isAdmin=true', '__proto__=x', '__proto__%5B%5D=1', 'constructor=x']) {
    const payload = `${new URLSearchParams(withHoneypot(props, { note: 'hi' }) as Record<string, string>)}&${extra}`
    const form = await app.inject({ method: 'POST', url: CONTACT_PATH, headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, payload })
    t.equal(form.statusCode, 422, `a form field the schema does not name, without additionalProperties: false: ${extra}`)
  }
  t.equal(seen.length, 0, 'the handler never ran')
  t.equal((await json(`{${honeypot},"note":"hi"}`)).statusCode, 200)
  t.equal(Object.getPrototypeOf(seen[0]), null, 'the values have no prototype')
  t.same({ ...seen[0] as object }, { note: 'hi' })
})

t.test('a form opts into unknown fields with a reason; even then `__proto__` and `constructor` are refused', async (t) => {
  const seen: Array<Record<string, unknown>> = []
  const { app } = await build(t, {
    screens: contactScreens({ action: defineAction({ schema: Type.Object({ note: Type.String() }), acceptUnknownFields: 'a survey whose questions change weekly', handle: ({ values }) => { seen.push(values) } }) }),
    honeypot: { timing: false }
  })
  const props = await renderedHoneypot(app, CONTACT_PATH)
  t.equal((await postForm(app, CONTACT_PATH, withHoneypot(props, { note: 'hi', q7: 'yes' }), { accept: 'application/json' })).statusCode, 200)
  t.same({ ...seen[0] }, { note: 'hi', q7: 'yes' })
  for (const extra of ['__proto__=x', 'constructor=x', 'prototype=x']) {
    const payload = `${new URLSearchParams(withHoneypot(props, { note: 'hi' }) as Record<string, string>)}&${extra}`
    const refused = await app.inject({ method: 'POST', url: CONTACT_PATH, headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, payload })
    t.equal(refused.statusCode, 422, extra)
  }
  t.equal(seen.length, 1)
  t.throws(() => defineFormRoute({ page: { id: CONTACT_ID, path: CONTACT_PATH }, schema: Type.Object({ note: Type.String() }, { additionalProperties: true }), handle: () => undefined }), /acceptUnknownFields/, 'an open schema without a reason is refused when the route is defined')
  const open = defineAction({ schema: Type.Object({ note: Type.String() }, { additionalProperties: true }), handle: () => undefined })
  await t.rejects(build(t, { screens: contactScreens({ action: open }) }), { message: new RegExp(`the screen "${CONTACT_ID}": its action: .*acceptUnknownFields`) }, 'a screen\'s action with an open schema and no reason stops start-up, naming the screen')
})

t.test('a toast the schema refuses is the engineer\'s error in the log, never a 500 after the work is done', async (t) => {
  let handled = 0
  const { app, logs } = await build(t, {
    screens: contactScreens({ action: defineAction({ schema: Type.Object({ note: Type.String() }), handle: () => { handled++; return { toast: { description: '€'.repeat(1000) } } } }) }),
    honeypot: { timing: false },
    allowErrorLogs: true
  })
  const props = await renderedHoneypot(app, CONTACT_PATH)
  const response = await postForm(app, CONTACT_PATH, withHoneypot(props, { note: 'hi' }))
  t.equal(response.statusCode, 303, 'the visitor is told it worked, since it did')
  t.equal(setCookie(response, FLASH_TOAST_COOKIE), undefined, 'without the toast')
  t.equal(handled, 1)
  t.match(logs.filter((line) => line.level === 50), [{ msg: /toast was refused/, route: CONTACT_PATH }])
})

t.test('a honeypot token rendered on another page is refused: tokens are bound to their form', async (t) => {
  const { app, received } = await buildContact(t)
  const home = await renderedHoneypot(app, '/')
  const replayed = await postForm(app, CONTACT_PATH, withHoneypot(home, VALID), { accept: 'application/json' })
  t.equal(replayed.statusCode, 400)
  t.equal(replayed.json().message, SEND_AGAIN.TIMESTAMP_INVALID)
  t.equal(received.length, 0)
})

t.test('a form route needs an object schema and an address', async (t) => {
  t.throws(() => defineFormRoute({ page: { id: CONTACT_ID, path: CONTACT_PATH }, schema: Type.String() as never, handle: () => undefined }), /must be a Type\.Object/)
  t.throws(() => defineFormRoute({ page: { id: CONTACT_ID }, schema: Type.Object({}), handle: () => undefined }), /has no path/)
})
