import type { Test } from 'tap'
import { build, type BuildOptions, type TestApp } from './app.js'

export interface ListeningApp extends TestApp {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string
}

/** Builds the app and listens on a free port of 127.0.0.1 for browser tests; closed at teardown. */
export async function listen (t: Test, options: BuildOptions = {}): Promise<ListeningApp> {
  const built = await build(t, options)
  await built.app.listen({ port: 0, host: '127.0.0.1' })
  // Runs before build()'s app.close() (teardowns run last first): a browser still open holds
  // keep-alive sockets that close() would otherwise wait on until the connection timeout.
  t.teardown(() => built.app.server.closeAllConnections())
  const address = built.app.server.address()
  if (!address || typeof address === 'string') throw new Error('the test server has no TCP address')
  return { ...built, url: `http://127.0.0.1:${address.port}` }
}
