export default function Home () {
  return (
    <main className='home'>
      <h1>Agent Stack</h1>
      <p>The shell every screen of Agent Stack is rendered in.</p>
    </main>
  )
}
