import { defineScreen } from '../ui/define-screen.js'

export default defineScreen<null>({
  path: '/',
  meta: { description: 'Agent Stack: the application shell every screen is rendered in, fast and accessible, with or without JavaScript.', canonical: '/' },
  component: function HomeScreen () {
    return (
      <main className='home'>
        <h1>Agent Stack</h1>
        <p>The shell every screen of Agent Stack is rendered in.</p>
      </main>
    )
  }
})
