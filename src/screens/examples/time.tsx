import { defineScreen } from '../../ui/define-screen.js'
import { LocalTime } from '../../ui/local-time.js'
import { useRequestInfo } from '../../ui/request-info.js'

const PATH = '/examples/time'

export interface TimeData {
  /** When the page was rendered, as an ISO string: the browser hydrates the same instant. */
  now: string
}

export default defineScreen<TimeData>({
  path: PATH,
  meta: {
    title: 'Your local time',
    description: 'An example screen showing the date and time in the visitor\'s own time zone, rendered on the server.',
    canonical: PATH
  },
  // Its data changes on every request: rendering it each time is cheaper than filling the render cache with it.
  cache: false,
  component: function TimeScreen ({ data }) {
    const { timeZone } = useRequestInfo().hints
    return (
      <main>
        <h1>Your local time</h1>
        <p>It is <LocalTime date={data.now} options={{ dateStyle: 'full', timeStyle: 'short' }} /> in {timeZone}.</p>
        <p>The server knows your time zone from a cookie the page's first script sets. On a first visit from another zone, this page reloads once to show it; no page without a local time ever does.</p>
        <p><a href='/examples'>Back to the examples</a></p>
      </main>
    )
  }
})
