import t from 'tap'
import { build } from '../helpers/app.js'

t.test('the home page is the document in the light theme', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(response.statusCode, 200)
  t.match(response.body, /^<!DOCTYPE html><html lang="en" class="light"[ >]/)
  t.match(response.body, '<title>Agent Stack</title>')
})

t.test('every request is logged under an id: the proxy\'s X-Request-Id when it is sane, else a fresh one', async (t) => {
  const { app, logs } = await build(t)
  const idOf = async (headers: Record<string, string>) => {
    const before = logs.length
    await app.inject({ url: '/', headers })
    return logs.slice(before).find((line) => line.msg === 'incoming request')?.requestId
  }
  t.equal(await idOf({ 'x-request-id': 'lb-7f3a.42' }), 'lb-7f3a.42', 'a proxy\'s id is kept, so logs join up')
  const fresh = [await idOf({}), await idOf({}), await idOf({ 'x-request-id': 'has spaces; and more' }), await idOf({ 'x-request-id': 'x'.repeat(129) })]
  t.ok(fresh.every((id) => typeof id === 'string' && /^[\w-]+-[0-9a-z]+$/.test(id)), `generated ids: ${fresh.join(', ')}`)
  t.equal(new Set(fresh).size, fresh.length, 'each one different')
})
