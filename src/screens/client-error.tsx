import { defineScreen } from '../ui/define-screen.js'

/** Every 4xx but the 404: its title and message come from the server's error catalogue. */
export default defineScreen<{ title: string, message: string }>({
  meta: { title: ({ data }) => data.title, description: ({ data }) => data.message },
  component: function ClientErrorScreen ({ data }) {
    return (
      <main className='message-page'>
        <h1>That request could not be processed</h1>
        <p role='alert'>{data.message}</p>
        <p><a href='/'>Go to the home page</a></p>
      </main>
    )
  }
})
