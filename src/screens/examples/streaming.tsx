import { Await } from '../../ui/await.js'
import { defineScreen } from '../../ui/define-screen.js'

const PATH = '/examples/streaming'

export interface SlowPart {
  /** How long it took, in milliseconds. */
  delay: number
}

/** `slow` is deferred: the page shows at once, and the slow part where its fallback was when it comes (docs/streaming.md says for whom). */
export interface StreamingData {
  delay: number
  /** Whether `?fail=1` makes the slow part fail: outside production only. */
  failureOffered: boolean
  slow: Promise<SlowPart>
}

export default defineScreen<StreamingData>({
  path: PATH,
  meta: {
    title: 'Streaming',
    description: 'An example screen that shows at once while a slow part of its data is on its way, and stays whole when that part fails.',
    canonical: PATH
  },
  component: function StreamingScreen ({ data }) {
    return (
      <main>
        <h1>Streaming</h1>
        <p>{`This page asked for a part that takes ${data.delay} ms. A browser that has run this site's scripts before showed the rest of the page at once, and the part in its place when it came; any other got the page whole once the part was ready.`}</p>
        <Await resolve={data.slow} fallback={<p className='slow-part'>Loading…</p>} error={(message) => <p className='slow-part' role='alert'>{message}</p>}>
          {(slow) => <p className='slow-part'>{`Loaded after ${slow.delay} ms`}</p>}
        </Await>
        <p>
          Try it <a href={`${PATH}?delay=5000`}>with a 5 s wait</a>{data.failureOffered ? ', ' : ' or '}<a href={`${PATH}?delay=0`}>with none</a>
          {data.failureOffered && <>, or <a href={`${PATH}?fail=1`}>with a part that fails</a></>}.
        </p>
        <p><a href='/examples'>Back to the examples</a></p>
      </main>
    )
  }
})
