import fp from 'fastify-plugin'

// Node answers an `Expect` other than 100-continue with a bare 417, none of the app's headers; RFC 9110 (10.1.1) lets
// a server ignore an expectation it does not know, so Fastify answers it like any other request.
export const unknownExpectations = fp(async (app) => {
  app.server.on('checkExpectation', (request, response) => {
    app.server.emit('request', request, response)
  })
}, { name: 'unknown-expectations', fastify: '5.x' })
