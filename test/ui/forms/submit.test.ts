import t from 'tap'
import { ANSWER_LOST, navigate, NO_ANSWER, NOT_ACCEPTED, NOT_SENT, readAnswer, submitInBackground } from '../../../src/ui/forms/submit.js'

t.test('an accepted form goes where the server said, on this site only', async (t) => {
  t.same(readAnswer(200, { ok: true, redirectTo: '/thanks?x=1#top' }), { redirectTo: '/thanks?x=1#top' })
  t.same(readAnswer(200, { ok: true, redirectTo: 'https://evil.example/' }), { redirectTo: '/' })
  // Read by the URL parser navigate() goes by: what it takes for another site, or cannot read, is home.
  for (const elsewhere of ['//evil.example', '/\\evil.example', '/\t/evil.example', '\\\\evil.example', 'javascript:alert(1)', 'http://[']) {
    t.same(readAnswer(200, { ok: true, redirectTo: elsewhere }), { redirectTo: '/' }, JSON.stringify(elsewhere))
  }
})

t.test('a refused form shows the server\'s message and field messages', async (t) => {
  t.same(readAnswer(422, { statusCode: 422, message: 'Some answers need correcting.', errors: { email: 'Enter an email address.', odd: 42 } }), { message: 'Some answers need correcting.', errors: { email: 'Enter an email address.' } }, 'messages that are not text are dropped')
  t.same(readAnswer(400, { statusCode: 400, message: 'This form was submitted too quickly.' }), { message: 'This form was submitted too quickly.', errors: {} })
  t.same(readAnswer(422, { message: 'Some answers need correcting.', redirectTo: '/thanks' }), { message: 'Some answers need correcting.', errors: {} }, 'a refusal leads nowhere, whatever it names')
})

t.test('an answer that is not the form route\'s still says something a person can act on', async (t) => {
  for (const [status, body] of [[502, null], [500, 'Bad Gateway'], [200, { ok: true }], [200, []], [413, { message: '' }], [422, { errors: null }]] as const) {
    t.same(readAnswer(status, body), { message: NOT_ACCEPTED, errors: {} }, `${status} ${JSON.stringify(body)}`)
  }
})

/** Replaces a global for one test; the browser's FormData, fetch and location are not Node's. */
function stub<K extends 'FormData' | 'fetch' | 'window'> (test: Pick<typeof t, 'teardown'>, name: K, value: unknown) {
  const had = Object.getOwnPropertyDescriptor(globalThis, name)
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true })
  test.teardown(() => { if (had) Object.defineProperty(globalThis, name, had); else delete (globalThis as Record<string, unknown>)[name] })
}

/** A form as submitInBackground reads it: its action and its entries, a file among them. */
function fakeForm (test: Pick<typeof t, 'teardown'>, entries: Array<[string, unknown]>) {
  stub(test, 'FormData', class { constructor (form: { entries: Array<[string, unknown]> }) { return form.entries } })
  return { action: 'http://127.0.0.1/contact', entries } as unknown as HTMLFormElement
}

t.test('a background submission posts the form URL-encoded, asking for JSON, files left out', async (t) => {
  const sent: Array<{ url: string, init: RequestInit }> = []
  stub(t, 'fetch', async (url: string, init: RequestInit) => {
    sent.push({ url, init })
    return new Response(JSON.stringify({ ok: true, redirectTo: '/contact' }), { status: 200 })
  })
  const form = fakeForm(t, [['name', 'Ada & co'], ['terms', 'on'], ['upload', new Blob(['x'])]])
  t.same(await submitInBackground(form), { redirectTo: '/contact' })
  t.equal(sent[0]?.url, 'http://127.0.0.1/contact')
  t.equal(sent[0]?.init.method, 'POST')
  t.equal(String(sent[0]?.init.body), 'name=Ada+%26+co&terms=on')
  t.same(sent[0]?.init.headers, { accept: 'application/json' })
})

t.test('a submission that never arrives, or an answer that is not JSON, says so in words', async (t) => {
  const form = fakeForm(t, [['name', 'Ada']])
  stub(t, 'fetch', async () => { throw new TypeError('Failed to fetch') })
  t.same(await submitInBackground(form), { message: NOT_SENT, errors: {} })
  stub(t, 'fetch', async () => new Response('<h1>Bad gateway</h1>', { status: 502 }))
  t.same(await submitInBackground(form), { message: NOT_ACCEPTED, errors: {} })
})

t.test('when it is unknown whether the form arrived, the words do not ask for it to be sent again', async (t) => {
  const form = fakeForm(t, [['name', 'Ada']])
  // As a bad network does: no answer, until the request's signal gives up on it.
  stub(t, 'fetch', (_url: string, init: RequestInit) => new Promise((_resolve, reject) => {
    init.signal?.addEventListener('abort', () => { reject(init.signal?.reason) })
  }))
  // Node's AbortSignal.timeout does not keep the process alive by itself.
  const alive = setTimeout(() => {}, 5000)
  t.same(await submitInBackground(form, 50), { message: NO_ANSWER, errors: {} }, 'no answer within the time limit')
  clearTimeout(alive)

  // Taken (a 2xx), and cut off before its JSON ended.
  stub(t, 'fetch', async () => new Response('{"ok":true,"redirectTo":"/th', { status: 200 }))
  t.same(await submitInBackground(form), { message: ANSWER_LOST, errors: {} }, 'an accepted form\'s answer cut off')
  stub(t, 'fetch', async () => new Response('{"statusCode":422,"mess', { status: 422 }))
  t.same(await submitInBackground(form), { message: NOT_ACCEPTED, errors: {} }, 'a refusal cut off is still a refusal')
})

t.test('after success the browser goes where the server said; a new fragment of this page reloads it', async (t) => {
  const calls: string[] = []
  const location = {
    href: 'http://127.0.0.1/contact?from=home',
    pathname: '/contact',
    search: '?from=home',
    assign (url: string) { calls.push(`assign ${url}`) },
    reload () { calls.push('reload') }
  }
  stub(t, 'window', { location })
  navigate('/thanks')
  navigate('/contact?from=home#sent')
  navigate('/contact#sent')
  t.same(calls, [
    'assign http://127.0.0.1/thanks',
    'assign http://127.0.0.1/contact?from=home#sent', 'reload',
    'assign http://127.0.0.1/contact#sent'
  ])
})
