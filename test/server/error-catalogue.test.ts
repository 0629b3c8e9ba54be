import t from 'tap'
import { answerFor, ClientError, clientError, ERRORS, errorBody, SEND_AGAIN, STATUSES, statusWords } from '../../src/server/errors.js'
import { HONEYPOT_CODES } from '../../src/server/security/honeypot.js'
import { build } from '../helpers/app.js'

t.test('every code in the catalogue has words for its status, for protocols and for people', async (t) => {
  for (const [code, { status, message }] of Object.entries(ERRORS)) {
    t.ok(status in STATUSES, `${code}: ${status} has a reason phrase and a title`)
    t.match(message, /^[A-Z].*\.$/, `${code}: the message is a sentence`)
  }
})

t.test('a form refused by the honeypot and shown again asks to send it again, never to reload', async (t) => {
  t.same(Object.keys(SEND_AGAIN).sort(), [...HONEYPOT_CODES].sort(), 'one message for each honeypot code')
  for (const [code, message] of Object.entries(SEND_AGAIN)) {
    t.equal(ERRORS[code as keyof typeof SEND_AGAIN].status, 400, `${code} is a code of the catalogue`)
    t.match(message, /^[A-Z].*\.$/, `${code}: the message is a sentence`)
    t.notMatch(message, /reload/i, `${code}: the form shown is a fresh one`)
  }
})

t.test('a client error keeps its code, status and message', async (t) => {
  const error = clientError('CROSS_SITE', 'Nothing was saved.')
  t.ok(error instanceof ClientError)
  t.same(answerFor(error), { status: 403, code: 'CROSS_SITE', message: 'Nothing was saved.' })
  t.same(answerFor(clientError('NOT_FOUND')), { status: 404, code: 'NOT_FOUND', message: ERRORS.NOT_FOUND.message }, 'the catalogue\'s message by default')
})

t.test('Fastify\'s errors get the catalogue\'s message, never their own', async (t) => {
  const fastifyError = Object.assign(new Error('Body is not valid JSON but content-type is set to \'application/json\''), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 })
  t.same(answerFor(fastifyError), { status: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY', message: 'The request body is not valid JSON.' })
})

t.test('a library\'s 4xx outside the catalogue keeps its status but not its words, which may quote the request', async (t) => {
  const quoting = Object.assign(new Error('Unsupported Weird-Header: please call +1-555-0100'), { code: 'FST_SOME_PLUGIN_ERR', statusCode: 415 })
  t.same(answerFor(quoting), { status: 415, code: 'FST_SOME_PLUGIN_ERR', message: ERRORS.BAD_REQUEST.message })
})

t.test('a request body in an encoding the server cannot undo is answered in the catalogue\'s words, the header not quoted', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({
    method: 'POST',
    url: '/resources/theme-switch',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'Please call +1-555-0100' },
    payload: 'theme=dark'
  })
  t.equal(response.statusCode, 415)
  t.same(response.json(), errorBody({ status: 415, code: 'FST_CP_ERR_INVALID_CONTENT_ENCODING', message: ERRORS.FST_CP_ERR_INVALID_CONTENT_ENCODING.message }))
  t.notMatch(response.body, /555/)
})

t.test('anything else is a 500 whose cause stays out of the answer', async (t) => {
  for (const thrown of [new Error('db password rejected'), Object.assign(new Error('upstream said no'), { statusCode: 502, code: 'UPSTREAM' }), {}]) {
    t.same(answerFor(thrown), { status: thrown instanceof Error && 'statusCode' in thrown ? 502 : 500, code: 'INTERNAL', message: ERRORS.INTERNAL.message })
  }
  t.same(answerFor(Object.assign(new Error('busy'), { code: 'FST_UNDER_PRESSURE', statusCode: 503 })), { status: 503, code: 'FST_UNDER_PRESSURE', message: ERRORS.FST_UNDER_PRESSURE.message }, 'load shedding keeps its own words')
})

t.test('a status outside 400 to 599 is no error status: the catalogue\'s for the code, else a 500', async (t) => {
  const thrown = (statusCode: number, code?: string) => Object.assign(new Error('said by a library'), { statusCode, code })
  t.same(answerFor(thrown(600)), { status: 500, code: 'INTERNAL', message: ERRORS.INTERNAL.message }, '600 is past the last')
  t.same(answerFor(thrown(399)), { status: 500, code: 'INTERNAL', message: ERRORS.INTERNAL.message }, 'a 3xx is no error')
  t.same(answerFor(thrown(302, 'FST_ERR_CTP_BODY_TOO_LARGE')), { status: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: ERRORS.FST_ERR_CTP_BODY_TOO_LARGE.message }, 'a known code keeps its status')
  t.same(answerFor(thrown(400)), { status: 400, code: 'BAD_REQUEST', message: ERRORS.BAD_REQUEST.message }, '400 is the first')
  t.same(answerFor(thrown(599)).status, 599, '599 the last')
})

t.test('the JSON body names the status in HTTP\'s words', async (t) => {
  t.same(errorBody({ status: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'Too big.' }), { statusCode: 413, error: 'Payload Too Large', message: 'Too big.' })
  t.same(statusWords(418), STATUSES[400], 'a 4xx without words of its own reads as a bad request')
  t.same(statusWords(504), STATUSES[500])
})
