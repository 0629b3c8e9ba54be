import t from 'tap'
import { TIME_ZONE_MARKER } from '../../../shared/client-hints.js'
import { build, cacheOutcome, pageData } from '../../../../test/helpers/app.js'

const EXAMPLES_PATH = '/examples'
const FORM_PATH = '/examples/form'
const TIME_PATH = '/examples/time'

/**
 * The local-time example (src/screens/examples/time.tsx): the instant of the request in the zone the browser hinted,
 * rendered on every request, and the only example whose page may reload for the hint (it carries the marker).
 */

const visit = (app: Awaited<ReturnType<typeof build>>['app'], url: string, cookie?: string) =>
  app.inject({ url, headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } })

t.test('the time of the request, in the visitor\'s zone', async (t) => {
  const { app } = await build(t)
  const before = Date.now()
  const page = await visit(app, TIME_PATH, 'CH-time-zone=Asia%2FTokyo')
  const after = Date.now()
  t.equal(page.statusCode, 200)
  t.match(page.body, '<title>Your local time | Agent Stack</title>')
  t.match(page.body, /<meta name="description" content="An example screen showing the date and time[^"]*"/)
  const { now } = pageData(page.body).page.data as { now: string }
  t.ok(Date.parse(now) >= before && Date.parse(now) <= after, 'the loader\'s instant is the request\'s')
  const shown = new Intl.DateTimeFormat('en', { dateStyle: 'full', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(new Date(now))
  t.match(page.body.replace(/\u202f/g, ' '), `<time dateTime="${now}" ${TIME_ZONE_MARKER}="Asia/Tokyo">${shown.replace(/\u202f/g, ' ')}</time>`)
  t.match(page.body, 'in <!-- -->Asia/Tokyo', 'the zone named')
  t.match(page.body, `<a href="${EXAMPLES_PATH}">Back to the examples</a>`)

  const unhinted = await visit(app, TIME_PATH)
  t.match(unhinted.body, `${TIME_ZONE_MARKER}="UTC"`, 'UTC until the browser hints its zone')
})

t.test('rendered on every request: never from the render cache', async (t) => {
  const { app } = await build(t)
  const first = await visit(app, TIME_PATH)
  const second = await visit(app, TIME_PATH)
  t.same([first, second].map(cacheOutcome), ['bypass', 'bypass'])
})

t.test('no other example carries the time-zone marker, so none reloads for the hint', async (t) => {
  const { app } = await build(t)
  for (const path of ['/', EXAMPLES_PATH, FORM_PATH]) {
    const page = await visit(app, path, 'CH-time-zone=Europe%2FParis')
    t.equal(page.statusCode, 200, path)
    t.notOk(page.body.includes(`${TIME_ZONE_MARKER}=`), `${path} has no marker`)
  }
})
