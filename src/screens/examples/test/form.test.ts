import t from 'tap'
import { FLASH_TOAST_COOKIE } from '../../../server/cookies/flash-toast.js'
import { build, pageData, postForm, setCookie } from '../../../../test/helpers/app.js'
import { renderedHoneypot, withHoneypot } from '../../../../test/helpers/forms.js'

const FORM_PATH = '/examples/form'

/**
 * The sign-up example (src/screens/examples/form.tsx and form.server.ts): its page, a welcome after the redirect,
 * a message by each wrong field with the answers kept but the password, and the checks every form has.
 */

const SAME_ORIGIN = { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' }
const VALID = { name: 'Ada', email: 'ada@example.com', password: 'correct horse', age: '36', agree: 'on' }
/** Each field wrong as a person gets it wrong: the box left unticked sends nothing. */
const WRONG = { name: 'A'.repeat(81), email: 'ada at example', password: 'hunter2', age: '3.5' }
const WRONG_MESSAGES = {
  name: 'Use at most 80 characters for your name',
  email: 'Enter an email address, like name@example.com.',
  password: 'Use at least 8 characters for your password',
  age: 'Enter your age as a whole number of years',
  agree: 'Tick the box to agree to the terms'
}

async function signUpApp (t: Parameters<typeof build>[0]) {
  // The honeypot refuses a form sent within 2 s of its rendering; a test is faster.
  const { app } = await build(t, { honeypot: { timing: false } })
  const honeypot = await renderedHoneypot(app, FORM_PATH)
  const send = (answers: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(app, FORM_PATH, withHoneypot(honeypot, answers), { ...SAME_ORIGIN, ...headers })
  return { app, send }
}

t.test('the sign-up page has its own title and description, a form posting to itself, and a way back', async (t) => {
  const { app } = await build(t)
  const page = await app.inject({ url: FORM_PATH, headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<title>Sign up | Agent Stack</title>')
  t.match(page.body, /<meta name="description" content="An example sign-up form that works with and without JavaScript."/)
  t.match(page.body, /<form class="form"[^>]* action="\/examples\/form" method="post">/, 'a form posting to the page itself')
  for (const name of ['name', 'email', 'password', 'age', 'agree']) t.match(page.body, `name="${name}"`, `the ${name} field`)
  t.match(page.body, '<a href="/examples">Back to the examples</a>')
  t.match(pageData(page.body).honeyProps, { nameFieldName: String }, 'the honeypot is built in')
})

t.test('signed up: 303 back to the page, which welcomes the visitor by name once', async (t) => {
  const { app, send } = await signUpApp(t)
  const sent = await send(VALID)
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, FORM_PATH)
  const toast = setCookie(sent, FLASH_TOAST_COOKIE)?.value
  t.ok(toast, 'a flash toast')
  const back = await app.inject({ url: FORM_PATH, headers: { accept: 'text/html' }, cookies: { [FLASH_TOAST_COOKIE]: toast! } })
  t.match(pageData(back.body).toast, { type: 'success', description: 'Welcome, Ada.' })
  t.match(back.body, 'Welcome, Ada.', 'shown without JavaScript too')

  t.equal((await send({ name: 'Ada', email: 'ada@example.com', password: 'correct horse', agree: 'on' })).statusCode, 303, 'age is optional')
})

t.test('wrong answers: 422, a message by each field, the answers kept but never the password', async (t) => {
  const { send } = await signUpApp(t)
  const refused = await send(WRONG)
  t.equal(refused.statusCode, 422)
  const { form } = pageData(refused.body).page
  t.same(form?.errors, WRONG_MESSAGES)
  t.same(form?.values, { name: WRONG.name, email: WRONG.email, age: WRONG.age }, 'kept, the password left out')
  t.notMatch(refused.body, WRONG.password, 'the password is nowhere in the page')
  t.match(refused.body, `value="${WRONG.email}"`, 'the field is filled in again without JavaScript')

  const empty = await send({})
  t.same(pageData(empty.body).page.form?.errors, { name: 'Enter your name', email: 'Enter your email address', password: 'Choose a password', agree: WRONG_MESSAGES.agree }, 'the required fields, not the optional age')

  const json = await send(WRONG, { accept: 'application/json' })
  t.equal(json.statusCode, 422, 'with JavaScript, the same refusal as JSON')
  t.same(json.json().errors, WRONG_MESSAGES)
  t.notMatch(json.body, WRONG.password)
})

t.test('the honeypot and the cross-site check, as on every form', async (t) => {
  const { app, send } = await signUpApp(t)
  const bot = await send({ ...VALID, name__confirm: 'Buy now' })
  t.equal(bot.statusCode, 400)
  t.match(bot.body, 'a field meant to stay empty was filled in')
  t.notOk(setCookie(bot, FLASH_TOAST_COOKIE), 'no welcome')

  const noHoneypot = await postForm(app, FORM_PATH, VALID, SAME_ORIGIN)
  t.equal(noHoneypot.statusCode, 400, 'a post without the honeypot fields is refused')

  const foreign = await send(VALID, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
  t.equal(foreign.statusCode, 403)
  t.notOk(setCookie(foreign, FLASH_TOAST_COOKIE), 'no welcome')
})
