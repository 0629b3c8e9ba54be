// test/server/weather.test.ts in docs/streaming.md; test/build/streaming-guide.test.ts holds the two alike.
import t from 'tap'
import { build } from '../helpers/app.js'
import { screen } from '../helpers/screens.js'
import weather from '../fixtures/streaming/weather.js'
import { loader } from '../fixtures/streaming/weather.server.js'

t.test('the weather screen shows the city, and the forecast when it comes', async (t) => {
  const { app } = await build(t, { screens: { weather: screen(weather, { loader }) } })
  // A first visit gets the finished document, the forecast in place.
  const page = await app.inject({ url: '/weather?delay=0', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<h1>Weather in Lisbon</h1>')
  t.match(page.body, '<p class="forecast">Sunny, 21 °C</p>')

  const bad = await app.inject({ url: '/weather?delay=soon', headers: { accept: 'text/html' } })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, 'The delay must be a whole number of milliseconds from 0 to 60000.')
})
