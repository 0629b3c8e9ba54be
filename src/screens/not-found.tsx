import { defineScreen } from '../ui/define-screen.js'

/** Its message is the error's: the catalogue's for an unknown address, a loader's own for a record it did not find. */
export default defineScreen<{ title: string, message: string }>({
  meta: { title: ({ data }) => data.title, description: 'There is nothing at this address of Agent Stack.' },
  component: function NotFoundScreen ({ data }) {
    return (
      <main className='message-page'>
        <h1>Page not found</h1>
        <p>{data.message} <a href='/'>Go to the home page</a>.</p>
      </main>
    )
  }
})
