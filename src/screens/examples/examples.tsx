import { defineScreen } from '../../ui/define-screen.js'

const LIST = [
  { path: '/examples/form', name: 'A sign-up form', what: 'field errors by each field with and without JavaScript, a password never sent back, and a flash toast after the redirect.' },
  { path: '/examples/streaming', name: 'Streaming', what: 'a page that shows at once while a slow part of its data is on its way, and stays whole when that part fails.' },
  { path: '/examples/time', name: 'Your local time', what: 'a date and time in the visitor\'s time zone, rendered on the server from the time-zone hint.' }
]

export default defineScreen<null>({
  path: '/examples',
  meta: {
    title: 'Examples',
    description: 'Working screens of Agent Stack: a form, a streamed page and a local time, each built only with what the documentation teaches.',
    canonical: '/examples'
  },
  component: function ExamplesScreen () {
    return (
      <main>
        <h1>Examples</h1>
        <p>Each example is a screen built only with what the documentation teaches; its files are in src/screens/examples/.</p>
        <ul>
          {LIST.map(({ path, name, what }) => (
            <li key={path}><a href={path}>{name}</a>: {what}</li>
          ))}
        </ul>
        <p><a href='/'>Back to the home page</a></p>
      </main>
    )
  }
})
