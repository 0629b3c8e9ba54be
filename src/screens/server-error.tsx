import { defineScreen } from '../ui/define-screen.js'

/** Shown when a page failed on the server; the cause is logged, never shown. */
export default defineScreen<{ title: string }>({
  meta: { title: ({ data }) => data.title, description: 'Agent Stack could not show this page. Please try again in a moment.' },
  component: function ServerErrorScreen () {
    return (
      <main className='message-page'>
        <h1>Something went wrong</h1>
        <p>We could not show this page. Please try again in a moment. <a href='/'>Go to the home page</a>.</p>
      </main>
    )
  }
})
