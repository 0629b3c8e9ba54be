/** What the tab says for each client error the app answers with this page. */
const TITLES: Partial<Record<number, string>> = {
  403: 'Forbidden',
  405: 'Method not allowed',
  413: 'Request too large',
  415: 'Unsupported content type'
}

export function clientErrorTitle (status: number): string {
  return TITLES[status] ?? 'Bad request'
}

export function BadRequestPage ({ data }: { data: { message: string } }) {
  return (
    <main className='message-page'>
      <h1>That request could not be processed</h1>
      <p role='alert'>{data.message}</p>
      <p><a href='/'>Go to the home page</a></p>
    </main>
  )
}
