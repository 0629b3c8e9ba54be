import t from 'tap'
import { NOT_ACCEPTED, readAnswer } from '../../../src/ui/forms/submit.js'

t.test('an accepted form goes where the server said, on this site only', async (t) => {
  t.same(readAnswer(200, { ok: true, redirectTo: '/thanks?x=1#top' }), { redirectTo: '/thanks?x=1#top' })
  t.same(readAnswer(200, { ok: true, redirectTo: 'https://evil.example/' }), { redirectTo: '/' })
})

t.test('a refused form shows the server\'s message and field messages', async (t) => {
  t.same(readAnswer(422, { statusCode: 422, message: 'Some answers need correcting.', errors: { email: 'Enter an email address.', odd: 42 } }), { message: 'Some answers need correcting.', errors: { email: 'Enter an email address.' } }, 'messages that are not text are dropped')
  t.same(readAnswer(400, { statusCode: 400, message: 'This form was submitted too quickly.' }), { message: 'This form was submitted too quickly.', errors: {} })
})

t.test('an answer that is not the form route\'s still says something a person can act on', async (t) => {
  for (const [status, body] of [[502, null], [500, 'Bad Gateway'], [200, { ok: true }], [200, []], [413, { message: '' }], [422, { errors: null }]] as const) {
    t.same(readAnswer(status, body), { message: NOT_ACCEPTED, errors: {} }, `${status} ${JSON.stringify(body)}`)
  }
})
