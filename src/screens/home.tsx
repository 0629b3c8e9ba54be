import { useContext } from 'react'
import { defineScreen } from '../ui/define-screen.js'
import { ScreenTableContext } from '../ui/screen-table.js'

export default defineScreen<null>({
  path: '/',
  meta: { description: 'Agent Stack: the application shell every screen is rendered in, fast and accessible, with or without JavaScript.', canonical: '/' },
  component: function HomeScreen () {
    return (
      <main className='home'>
        <h1>Agent Stack</h1>
        <p>The shell every screen of Agent Stack is rendered in.</p>
        {/* Shown while the registry lists the examples, so removing them leaves no dead link. */}
        {Object.hasOwn(useContext(ScreenTableContext), 'examples') ? <p><a href='/examples'>See it at work in the examples</a>.</p> : null}
      </main>
    )
  }
})
