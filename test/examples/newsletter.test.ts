// The README's example test (test/server/newsletter.test.ts there); test/build/readme-example.test.ts holds the two alike.
import t from 'tap'
import { build, pageData, postForm } from '../helpers/app.js'
import { renderedHoneypot, withHoneypot } from '../helpers/forms.js'
import { newsletterForm, newsletterLoader } from '../fixtures/newsletter/form.js'
import { NEWSLETTER } from '../fixtures/newsletter/page.js'

t.test('subscribing to the newsletter', async (t) => {
  const { app } = await build(t, {
    pages: [NEWSLETTER],
    loaders: new Map([newsletterLoader]),
    forms: [newsletterForm],
    // The honeypot refuses a form sent within 2 s of its rendering; a test is faster.
    honeypot: { timing: false }
  })
  const honeypot = await renderedHoneypot(app, '/newsletter')
  const subscribe = (email: string) => postForm(app, '/newsletter', withHoneypot(honeypot, { email }))

  const wrong = await subscribe('ada')
  t.equal(wrong.statusCode, 422)
  t.same(pageData(wrong.body).page.form?.errors, { email: 'Enter an email address, like name@example.com.' })

  const sent = await subscribe('ada@example.com')
  t.equal(sent.statusCode, 303)
  t.equal(sent.headers.location, '/newsletter')

  const again = await subscribe('ada@example.com')
  t.same(pageData(again.body).page.form?.errors, { email: 'This address already gets the newsletter' })
})
