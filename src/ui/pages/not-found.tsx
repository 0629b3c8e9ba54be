export function NotFoundPage () {
  return (
    <main className='message-page'>
      <h1>Page not found</h1>
      <p>There is nothing at this address. <a href='/'>Go to the home page</a>.</p>
    </main>
  )
}
