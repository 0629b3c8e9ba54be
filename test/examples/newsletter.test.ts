// test/server/newsletter.test.ts in docs/building-a-screen.md; test/build/screen-guide.test.ts holds the two alike.
import t from 'tap'
import { build, pageData, postForm, setCookie } from '../fixtures/newsletter/app.js'
import { renderedHoneypot, withHoneypot } from '../helpers/forms.js'
import { SEEN_COOKIE, SUBSCRIBER_COOKIE } from '../fixtures/newsletter/newsletter.server.js'

t.test('the newsletter welcomes a first visit once, and remembers who subscribed', async (t) => {
  // The honeypot refuses a form sent within 2 s of its rendering; a test is faster.
  const { app } = await build(t, { honeypot: { timing: false } })
  const visit = (cookies: Record<string, string> = {}) => app.inject({ url: '/newsletter', headers: { accept: 'text/html' }, cookies })

  const first = await visit()
  t.match(pageData(first.body).page.data, { firstVisit: true })
  t.match(setCookie(first, SEEN_COOKIE), { value: '1', path: '/', httpOnly: true, sameSite: 'Lax' }, 'the loader sets a cookie')
  const again = await visit({ [SEEN_COOKIE]: '1' })
  t.match(pageData(again.body).page.data, { firstVisit: false }, 'the loader reads it back')
  t.notOk(setCookie(again, SEEN_COOKIE), 'and sets it only once')

  const honeypot = await renderedHoneypot(app, '/newsletter')
  const subscribe = (email: string) => postForm(app, '/newsletter', withHoneypot(honeypot, { email }))

  const wrong = await subscribe('ada')
  t.equal(wrong.statusCode, 422)
  t.same(pageData(wrong.body).page.form?.errors, { email: 'Enter an email address, like name@example.com.' })

  const sent = await subscribe('ada@example.com')
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, '/newsletter')
  const subscriber = setCookie(sent, SUBSCRIBER_COOKIE)?.value ?? ''
  t.match(subscriber, /^ada@example\.com\./, 'the action sets a cookie, signed')

  const back = await visit({ [SEEN_COOKIE]: '1', [SUBSCRIBER_COOKIE]: subscriber })
  t.match(pageData(back.body).page.data, { subscribedAs: 'ada@example.com' })
  t.match(back.body, 'You get it at ada@example.com.')
  const forged = await visit({ [SEEN_COOKIE]: '1', [SUBSCRIBER_COOKIE]: 'ada@example.com' })
  t.match(pageData(forged.body).page.data, { subscribedAs: null }, 'an unsigned address is not believed')

  const twice = await subscribe('ada@example.com')
  t.same(pageData(twice.body).page.form?.errors, { email: 'This address already gets the newsletter' })
})
