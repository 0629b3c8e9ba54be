import type { ReactElement } from 'react'
import { renderToString } from 'react-dom/server'
import t from 'tap'
import type { FormState } from '../../../src/shared/form-state.js'
import type { HoneyProps } from '../../../src/shared/page-data.js'
import { PageFormStateContext } from '../../../src/ui/forms/form-context.js'
import { Field, Form, SubmitButton } from '../../../src/ui/forms/index.js'
import { HoneypotProvider } from '../../../src/ui/honeypot.js'

const honeyProps: HoneyProps = { nameFieldName: 'name__confirm', validFromFieldName: 'from__confirm', encryptedValidFrom: 'token' }

const REFUSED: FormState = {
  action: '/contact',
  message: 'Some answers need correcting.',
  errors: { email: 'Enter an email address.', password: 'Choose a password', terms: 'Tick the box' },
  values: { email: 'ada at example', password: 'hunter2', topic: 'feedback', terms: 'on', tags: ['first', 'second'], note: 'Hi <b>' }
}

/** The form as the server renders it for a page carrying `state`; fails the test on anything React logs. */
function render (test: Pick<typeof t, 'same'>, state: FormState | null, form: ReactElement): string {
  const logged: unknown[][] = []
  const original = console.error
  console.error = (...args: unknown[]) => { logged.push(args) }
  try {
    return renderToString(
      <HoneypotProvider value={honeyProps}>
        <PageFormStateContext value={state}>{form}</PageFormStateContext>
      </HoneypotProvider>
    )
  } finally {
    console.error = original
    test.same(logged, [], 'React logged nothing')
  }
}

const contact = (action = '/contact') => (
  <Form action={action} aria-label='Contact'>
    <Field name='email' type='email' label='Email' hint='We reply here.' autoComplete='email' required />
    <Field name='password' type='password' label='Password' />
    <Field name='topic' type='select' label='Topic' options={[{ value: 'question', label: 'Question' }, { value: 'feedback', label: 'Feedback' }]} />
    <Field name='tags' label='Tag' />
    <Field name='note' type='textarea' label='Note' rows={3} />
    <Field name='terms' type='checkbox' label='I agree' />
    <SubmitButton>Send</SubmitButton>
  </Form>
)

function tag (html: string, pattern: RegExp): string {
  const found = html.match(pattern)
  if (!found) throw new Error(`no tag matching ${pattern}`)
  return found[0]
}

t.test('a fresh form: a plain POST form with the honeypot inside, each control labelled, nothing marked', async (t) => {
  const html = render(t, null, contact())
  const form = tag(html, /<form[^>]*>/)
  for (const attribute of [/ method="post"/, / action="\/contact"/, / class="form"/, / novalidate=""/i, / aria-label="Contact"/]) t.match(form, attribute)
  t.match(html, /<input[^>]*name="name__confirm"/, 'the honeypot is inside')
  t.notMatch(html, /form-summary|aria-invalid|field-error/)
  const email = tag(html, /<input[^>]*name="email"[^>]*>/)
  const id = /id="([^"]+)"/.exec(email)![1]!
  t.match(html, `<label for="${id}" class="field-label">Email</label>`)
  t.match(email, `aria-describedby="${id}-hint"`, 'described by its hint')
  t.match(html, `<p id="${id}-hint" class="field-hint">We reply here.</p>`)
  t.match(email, /autoComplete="email"/i)
  t.match(email, /required=""/, 'required for assistive technology; the server says why, not the browser (novalidate)')
  t.match(html, /<button type="submit" class="form-submit"><span>Send<\/span><\/button>/)
})

t.test('a refused form: the summary in focus, each message by its field, the answers again, the password not', async (t) => {
  const html = render(t, REFUSED, contact())
  t.match(html, /<div class="form-summary" tabindex="-1" autofocus=""><div role="alert"><h2 class="form-summary-title">There is a problem<\/h2><p>Some answers need correcting\.<\/p>/)
  const email = tag(html, /<input[^>]*name="email"[^>]*>/)
  const id = /id="([^"]+)"/.exec(email)![1]!
  t.match(email, 'aria-invalid="true"')
  t.match(email, `aria-describedby="${id}-hint ${id}-error"`, 'hint then message')
  t.match(email, 'value="ada at example"')
  t.match(html, `<p id="${id}-error" class="field-error"><span class="visually-hidden">Error: </span>Enter an email address.</p>`)
  t.match(html, `<li><a href="#${id}">Enter an email address.</a></li>`, 'the summary links to the field')
  const password = tag(html, /<input[^>]*name="password"[^>]*>/)
  t.notMatch(password, 'value=', 'a password is never filled in again, even if the server sent it')
  t.match(password, 'aria-invalid="true"')
  t.match(html, '<option value="feedback" selected="">Feedback</option>')
  t.match(tag(html, /<input[^>]*name="terms"[^>]*>/), 'checked=""')
  t.match(tag(html, /<input[^>]*name="tags"[^>]*>/), 'value="first"', 'a repeated answer shows its first')
  t.match(html, /<textarea[^>]*rows="3"[^>]*>Hi &lt;b&gt;<\/textarea>/)
  t.notMatch(tag(html, /<input[^>]*name="tags"[^>]*>/), 'aria-invalid', 'a field without a message is not marked')
})

t.test('only the form posting where the state came from shows it', async (t) => {
  t.notMatch(render(t, REFUSED, contact('/newsletter')), /form-summary|ada at example/)
  t.match(render(t, REFUSED, contact('/contact?from=footer')), /form-summary/, 'the query does not matter')
})

t.test('a refusal without field messages still says what is wrong', async (t) => {
  const html = render(t, { ...REFUSED, errors: {}, message: 'Please wait a moment.' }, contact())
  t.match(html, '<p>Please wait a moment.</p>')
  t.notMatch(html, /<ul>|aria-invalid/)
  t.match(tag(html, /<input[^>]*name="email"[^>]*>/), 'value="ada at example"')
})

t.test('an unticked box stays unticked', async (t) => {
  for (const terms of ['off', 'false']) {
    t.notMatch(tag(render(t, { ...REFUSED, values: { terms } }, contact()), /<input[^>]*name="terms"[^>]*>/), 'checked', terms)
  }
})

t.test('Field and SubmitButton outside a Form say what is missing', async (t) => {
  const original = console.error
  console.error = () => {}
  t.teardown(() => { console.error = original })
  t.throws(() => renderToString(<Field name='x' label='X' />), /<Field> must be rendered inside <Form>/)
  t.throws(() => renderToString(<SubmitButton>Go</SubmitButton>), /<SubmitButton> must be rendered inside <Form>/)
})

t.test('a fresh form shows each field\'s default; one shown again after a refusal shows what was sent instead', async (t) => {
  const settings = (
    <Form action='/contact'>
      <Field name='email' type='email' label='Email' defaultValue='ada@example.com' />
      <Field name='topic' type='select' label='Topic' defaultValue='question' options={[{ value: 'question', label: 'Question' }, { value: 'feedback', label: 'Feedback' }]} />
      <Field name='note' type='textarea' label='Note' defaultValue='Saved note' />
      <Field name='terms' type='checkbox' label='I agree' defaultChecked />
    </Form>
  )
  const fresh = render(t, null, settings)
  t.match(tag(fresh, /<input[^>]*name="email"[^>]*>/), 'value="ada@example.com"')
  t.match(fresh, '<option value="question" selected="">Question</option>')
  t.match(fresh, />Saved note<\/textarea>/)
  t.match(tag(fresh, /<input[^>]*name="terms"[^>]*>/), 'checked=""')

  const refused = render(t, { ...REFUSED, values: { email: 'ada at example', topic: 'feedback' } }, settings)
  t.match(tag(refused, /<input[^>]*name="email"[^>]*>/), 'value="ada at example"', 'what was sent, not the default')
  t.match(refused, '<option value="feedback" selected="">Feedback</option>')
  t.notMatch(refused, 'Saved note', 'a box sent empty stays empty')
  t.notMatch(tag(refused, /<input[^>]*name="terms"[^>]*>/), 'checked', 'a box sent unticked (so not sent at all) stays unticked')
})
