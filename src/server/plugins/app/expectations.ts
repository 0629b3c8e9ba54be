import fp from 'fastify-plugin'

// Node answers a request whose `Expect` is anything but 100-continue by itself: a bare 417, with none of the app's
// headers and no words. RFC 9110 (10.1.1) lets a server ignore an expectation it does not know, so such a request
// is handed to Fastify like any other, and answered as any other.
export const unknownExpectations = fp(async (app) => {
  app.server.on('checkExpectation', (request, response) => {
    app.server.emit('request', request, response)
  })
}, { name: 'unknown-expectations', fastify: '5.x' })
