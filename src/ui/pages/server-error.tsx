/** Shown when a page failed on the server; the cause is logged, never shown. */
export function ServerErrorPage () {
  return (
    <main className='message-page'>
      <h1>Something went wrong</h1>
      <p>We could not show this page. Please try again in a moment. <a href='/'>Go to the home page</a>.</p>
    </main>
  )
}
