import { defineScreen } from '../ui/define-screen.js'

export default defineScreen<{ title: string }>({
  meta: { title: ({ data }) => data.title, description: 'There is nothing at this address of Agent Stack.' },
  component: function NotFoundScreen () {
    return (
      <main className='message-page'>
        <h1>Page not found</h1>
        <p>There is nothing at this address. <a href='/'>Go to the home page</a>.</p>
      </main>
    )
  }
})
