import t from 'tap'
import { build } from '../helpers/app.js'

t.test('the home page is the document in the light theme', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/', headers: { accept: 'text/html' } })
  t.equal(response.statusCode, 200)
  t.match(response.body, /^<!DOCTYPE html><html lang="en" class="light"[ >]/)
  t.match(response.body, '<title>Agent Stack</title>')
})
