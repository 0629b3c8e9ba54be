import { connect } from 'node:net'
import { setTimeout } from 'node:timers/promises'
import t from 'tap'
import { THEME_SWITCH_PATH } from '../../src/shared/theme.js'
import { listen } from '../helpers/server.js'

/** Sends `request` raw on a new connection and reads until the server closes it or the bound passes. */
async function exchange (url: string, request: string): Promise<string> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1')
  let received = ''
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1') })
  const closed = new Promise((resolve) => socket.once('close', resolve))
  socket.write(request)
  await Promise.race([closed, setTimeout(5_000)])
  socket.destroy()
  return received
}

t.test('an expectation the server does not know is ignored: the request is answered as any other, by the app', async (t) => {
  const { url } = await listen(t)
  const body = 'theme=dark'
  const answer = await exchange(url, `POST ${THEME_SWITCH_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: bogus\r\nConnection: close\r\n` +
    `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
  t.match(answer, /^HTTP\/1\.1 303 /, 'the theme switch answers, not Node\'s bare 417')
  t.match(answer, /\r\nset-cookie: en_theme=dark;/i, 'and does its work')
  t.match(answer, /\r\nx-content-type-options: nosniff\r\n/i, 'with the app\'s headers')

  const page = await exchange(url, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\nAccept: text/html\r\nConnection: close\r\n\r\n')
  t.match(page, /^HTTP\/1\.1 200 /)
  t.match(page, /<title>Agent Stack<\/title>/)
})
