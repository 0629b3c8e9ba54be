import { createElement } from 'react'
import { LocalTime } from '../../src/ui/local-time.js'
import { screen } from './screens.js'

/** A screen showing a time, as a product screen would: the instant comes from its loader. */
export const MEETING = '2025-01-15T13:30:00.000Z'

/** The meeting screen, for the server and for a test's browser entry (whose bundle never calls the loader). */
export const MEETING_SCREENS = {
  meeting: screen<{ at: string }>({
    path: '/meeting',
    component: ({ data }) => createElement('main', null, createElement('h1', null, 'Next meeting'), createElement('p', null, createElement(LocalTime, { date: data.at })))
  }, { loader: () => ({ at: MEETING }) })
}
