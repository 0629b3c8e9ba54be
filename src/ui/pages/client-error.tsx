/** Every 4xx but the 404: its title and message come from the server's error catalogue. */
export function ClientErrorPage ({ data }: { data: { message: string } }) {
  return (
    <main className='message-page'>
      <h1>That request could not be processed</h1>
      <p role='alert'>{data.message}</p>
      <p><a href='/'>Go to the home page</a></p>
    </main>
  )
}
