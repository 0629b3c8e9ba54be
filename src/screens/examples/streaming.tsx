import { Await } from '../../ui/await.js'
import { defineScreen } from '../../ui/define-screen.js'
import { BackToExamples } from './back-link.js'
import { STREAMING_PATH } from './paths.js'

export interface SlowPart {
  /** How long it took, in milliseconds. */
  delay: number
}

/** `slow` is deferred: the page shows at once, and the slow part where its fallback was when it comes. */
export interface StreamingData {
  delay: number
  slow: Promise<SlowPart>
}

export default defineScreen<StreamingData>({
  path: STREAMING_PATH,
  meta: {
    title: 'Streaming',
    description: 'An example screen that shows at once while a slow part of its data is on its way, and stays whole when that part fails.',
    canonical: STREAMING_PATH
  },
  component: function StreamingScreen ({ data }) {
    return (
      <main>
        <h1>Streaming</h1>
        <p>{`This page asked for a part that takes ${data.delay} ms. Everything else showed at once.`}</p>
        <Await resolve={data.slow} fallback={<p className='slow-part'>Loading…</p>} error={(message) => <p className='slow-part' role='alert'>{message}</p>}>
          {(slow) => <p className='slow-part'>{`Loaded after ${slow.delay} ms`}</p>}
        </Await>
        <p>Try it <a href={`${STREAMING_PATH}?delay=5000`}>with a 5 s wait</a>, <a href={`${STREAMING_PATH}?delay=0`}>with none</a>, or <a href={`${STREAMING_PATH}?fail=1`}>with a part that fails</a>.</p>
        <BackToExamples />
      </main>
    )
  }
})
