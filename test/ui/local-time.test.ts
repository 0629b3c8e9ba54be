import { createElement } from 'react'
import t from 'tap'
import { LocalTime } from '../../src/ui/local-time.js'
import { TIME_ZONE_MARKER } from '../../src/shared/client-hints.js'
import { build } from '../helpers/app.js'
import { screen } from '../helpers/screens.js'
import { MEETING, MEETING_SCREENS } from '../helpers/time-page.js'

/** LocalTime renders the instant in the hinted time zone, UTC until there is one, and marks the element. */

// ICU versions differ on the space before AM/PM (U+202F or U+0020).
const timeElement = (html: string) => /<time [^>]*>[^<]*<\/time>/.exec(html)?.[0]?.replace(/\u202f/g, ' ')

t.test('a time is rendered in the zone the browser hinted, and marked with it', async (t) => {
  const { app } = await build(t, { screens: MEETING_SCREENS })
  const visit = async (cookie?: string) => timeElement((await app.inject({ url: '/meeting', headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } })).body)
  t.equal(await visit(), `<time dateTime="${MEETING}" ${TIME_ZONE_MARKER}="UTC">Jan 15, 2025, 1:30 PM</time>`, 'UTC before the zone is known')
  t.equal(await visit('CH-time-zone=Europe%2FParis'), `<time dateTime="${MEETING}" ${TIME_ZONE_MARKER}="Europe/Paris">Jan 15, 2025, 2:30 PM</time>`)
  t.equal(await visit('CH-time-zone=America%2FNew_York'), `<time dateTime="${MEETING}" ${TIME_ZONE_MARKER}="America/New_York">Jan 15, 2025, 8:30 AM</time>`)
  t.equal(await visit('CH-time-zone=Etc%2FUnknown'), `<time dateTime="${MEETING}" ${TIME_ZONE_MARKER}="UTC">Jan 15, 2025, 1:30 PM</time>`, 'a zone Intl does not know is UTC')
})

t.test('each time is formatted with its own locale and options, whichever was formatted before', async (t) => {
  const at = (props: Record<string, unknown>) => createElement(LocalTime, { date: MEETING, ...props })
  const { app } = await build(t, {
    screens: {
      agenda: screen({
        path: '/agenda',
        component: () => createElement('main', null,
          createElement('p', null, at({})),
          createElement('p', null, at({ options: { timeStyle: 'short' } })),
          createElement('p', null, at({ locale: 'fr', options: { dateStyle: 'long' } })),
          createElement('p', null, at({})))
      })
    }
  })
  for (const [cookie, zone, times] of [
    ['CH-time-zone=Europe%2FParis', 'Europe/Paris', ['Jan 15, 2025, 2:30 PM', '2:30 PM', '15 janvier 2025', 'Jan 15, 2025, 2:30 PM']],
    ['CH-time-zone=America%2FNew_York', 'America/New_York', ['Jan 15, 2025, 8:30 AM', '8:30 AM', '15 janvier 2025', 'Jan 15, 2025, 8:30 AM']]
  ] as const) {
    const body = (await app.inject({ url: '/agenda', headers: { accept: 'text/html', cookie } })).body
    const shown = [...body.matchAll(/<time [^>]*>([^<]*)<\/time>/g)].map((match) => match[1]!.replace(/\u202f/g, ' '))
    t.same(shown, times, zone)
  }
})

t.test('a page without a time carries no marker', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/', headers: { accept: 'text/html', cookie: 'CH-time-zone=Europe%2FParis' } })
  t.notOk(response.body.includes(`${TIME_ZONE_MARKER}=`), 'nothing on the home page depends on the zone')
})
