// The production server, as the Epic Stack's: Express in front of React
// Router's request handler, the built assets served by express.static. Its
// helmet, rate limiting, request logging and compression are left out, so
// the peer's figures are, if anything, better than the Epic Stack's own.
import { createRequestHandler } from '@react-router/express'
import express from 'express'

const build = await import('./build/server/index.js')
const app = express()
app.disable('x-powered-by')
app.use('/assets', express.static('build/client/assets', { immutable: true, maxAge: '1y' }))
app.use(express.static('build/client', { maxAge: '1h' }))
app.use(createRequestHandler({ build }))

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
