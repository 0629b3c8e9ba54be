import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { errorCodes, type FastifyInstance, type FastifyRequest, type FastifySchemaValidationError } from 'fastify'
import { Type, type Static } from 'typebox'
import { safeRedirect } from '../../shared/safe-redirect.js'
import { THEME_PREFERENCES, THEME_SWITCH_PATH } from '../../shared/theme.js'
import { isCrossSite } from '../cross-site.js'
import { clientError } from '../errors.js'
import { varyByAccept, wantsJson } from '../negotiation.js'

/** The switch's fields, as the form and the JavaScript client send them: the validator, the type and the contract. */
export const ThemeSwitchBody = Type.Object({
  theme: Type.Enum(THEME_PREFERENCES),
  /** Where a form post returns to; anything but a path on this site becomes `/` (shared/safe-redirect.ts). */
  redirectTo: Type.Optional(Type.String())
})
export type ThemeSwitchBody = Static<typeof ThemeSwitchBody>

/** Two short fields: anything near this is not our form. */
const BODY_LIMIT = 4 * 1024
const ACCEPTED_TYPES = new Set(['application/x-www-form-urlencoded', 'application/json'])
const THEMES_IN_WORDS = 'system, light or dark'

/** Messages a person can act on, one per kind of bad input (Fastify's default names schema keywords). */
function validationMessage (errors: FastifySchemaValidationError[]): string {
  const first = errors[0]
  if (first?.instancePath === '/theme') return `The theme must be one of ${THEMES_IN_WORDS}, given once.`
  if (first?.instancePath === '/redirectTo') return 'redirectTo must be a single string: a path on this site.'
  if (first?.keyword === 'required') return `A theme is required: ${THEMES_IN_WORDS}.`
  return `The body must be a form or a JSON object with a theme (${THEMES_IN_WORDS}).`
}

function mediaType (request: FastifyRequest): string {
  const header = request.headers['content-type'] ?? ''
  const end = header.indexOf(';')
  return (end === -1 ? header : header.slice(0, end)).trim().toLowerCase()
}

/**
 * POST /resources/theme-switch: saves the theme preference (the cookie
 * module clears it for `system`). A form post is answered 303 to a path on
 * this site; a script asking for JSON gets `{ theme }`. Bad input never
 * touches the cookie and never becomes a 5xx: 400 (validation), 403
 * (cross-site), 413 (body over 4 KiB), 415 (neither a form nor JSON), each
 * rendered by the app's error handler as a page for browsers or JSON.
 */
export async function themeSwitchRoutes (app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(THEME_SWITCH_PATH, {
    bodyLimit: BODY_LIMIT,
    // A redirect or a few bytes of JSON; only a refused form post gets a page,
    // and the compression hooks are not worth their cost on every switch.
    compress: false,
    schema: { body: ThemeSwitchBody },
    // TypeBox's own checker: Fastify's default Ajv coerces types, so `{"theme":["dark"]}`
    // and `redirectTo: 42` would pass as "dark" and "42" instead of being refused.
    validatorCompiler: TypeBoxValidatorCompiler,
    schemaErrorFormatter: (errors) => clientError('FST_ERR_VALIDATION', validationMessage(errors)),
    onRequest: (request, _reply, done) => {
      // Before the body is read: another site's form must change nothing (login CSRF's cousin).
      if (isCrossSite(request)) {
        done(clientError('CROSS_SITE', 'This request came from another site, so the theme was not changed.'))
        return
      }
      // Whatever other parsers the app may gain, this route reads only these two.
      const type = mediaType(request)
      done(ACCEPTED_TYPES.has(type) ? undefined : new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(type || 'none'))
    }
  }, (request, reply) => {
    // Synchronous: nothing here waits, and an async handler's promise is a measurable share of a switch.
    const { theme, redirectTo } = request.body
    app.themeCookie.write(reply, theme)
    varyByAccept(reply.header('Cache-Control', 'no-store'))
    if (wantsJson(request)) reply.send({ theme })
    else reply.redirect(safeRedirect(redirectTo), 303)
  })
}
