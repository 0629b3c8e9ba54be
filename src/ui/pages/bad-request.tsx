export function BadRequestPage ({ data }: { data: { message: string } }) {
  return (
    <main className='message-page'>
      <h1>That request could not be processed</h1>
      <p role='alert'>{data.message}</p>
      <p><a href='/'>Go to the home page</a></p>
    </main>
  )
}
