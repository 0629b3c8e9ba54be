import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'

/**
 * Throws unless `location` takes a browser to a path on this site: one
 * leading slash, nothing a browser strips (tab, CR, LF) or reads as a slash
 * (`\`), and the same origin once resolved. Throws rather than asserting
 * through tap, so a fast-check property can call it thousands of times and
 * report only the counterexample.
 */
export function assertSameSitePath (location: string, origin = 'http://127.0.0.1'): void {
  const shown = JSON.stringify(location)
  assert.ok(location.startsWith('/'), `${shown} starts with /`)
  assert.ok(!location.startsWith('//') && !location.startsWith('/\\'), `${shown} does not start with // or /\\`)
  assert.doesNotMatch(location, /[\u0000-\u001F\u007F\\]/, `${shown} has no control character or backslash`)
  assert.equal(new URL(location, origin).origin, origin, `${shown} resolves to ${origin}`)
}

/** Throws unless the app still answers its health check (after an attack). */
export async function assertServing (app: FastifyInstance): Promise<void> {
  const response = await app.inject({ url: '/resources/healthcheck' })
  assert.equal(response.statusCode, 200, 'the health check answers 200')
  assert.equal(response.body, 'OK')
}
