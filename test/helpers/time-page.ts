import { createElement } from 'react'
import { defineLoader } from '../../src/server/pages/index.js'
import { LocalTime } from '../../src/ui/local-time.js'
import { definePage, PAGES } from '../../src/ui/page-table.js'

/** A page showing a time, as a product screen would: the instant comes from its loader. */
export const MEETING = '2025-01-15T13:30:00.000Z'

export const meetingPage = definePage<{ at: string }>({
  id: 'meeting',
  path: '/meeting',
  load: async () => ({ data }) => createElement('main', null, createElement('h1', null, 'Next meeting'), createElement('p', null, createElement(LocalTime, { date: data.at })))
})

/** The app's pages with the meeting page, on both sides. */
export const PAGES_WITH_MEETING = [...PAGES, meetingPage]

/** Only the server has loaders. */
export const MEETING_LOADERS = new Map([defineLoader(meetingPage, () => ({ at: MEETING }))])
