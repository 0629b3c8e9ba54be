import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify'
import { Type, type Static } from 'typebox'
import { MAX_REDIRECT_LENGTH, safeRedirect } from '../../shared/safe-redirect.js'
import { THEME_PREFERENCES, THEME_SWITCH_PATH } from '../../shared/theme.js'
import { clientError } from '../errors.js'
import { refuseForeignRequests } from '../forms/form-request.js'
import { varyByAccept, wantsJson } from '../http/negotiation.js'
import fp from 'fastify-plugin'

export const ThemeSwitchBody = Type.Object({
  theme: Type.Enum(THEME_PREFERENCES),
  redirectTo: Type.Optional(Type.String())
})
export type ThemeSwitchBody = Static<typeof ThemeSwitchBody>

// Room for the longest redirectTo a page offers: each character of its address takes up to three bytes form-encoded.
export const THEME_SWITCH_BODY_LIMIT = 3 * MAX_REDIRECT_LENGTH + 2 * 1024
const THEMES_IN_WORDS = 'system, light or dark'

function validationMessage (errors: FastifySchemaValidationError[]): string {
  const first = errors[0]
  if (first?.instancePath === '/theme') return `The theme must be one of ${THEMES_IN_WORDS}, given once.`
  if (first?.instancePath === '/redirectTo') return 'redirectTo must be a single string: a path on this site.'
  if (first?.keyword === 'required') return `A theme is required: ${THEMES_IN_WORDS}.`
  return `The body must be a form or a JSON object with a theme (${THEMES_IN_WORDS}).`
}

export const themeSwitchRoutes = fp(async function themeSwitchRoutes (app: FastifyInstance) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(THEME_SWITCH_PATH, {
    bodyLimit: THEME_SWITCH_BODY_LIMIT,
    compress: false,
    // A redirect or JSON; a refusal a browser sees is a page, with the documents' headers.
    config: { document: false },
    schema: { body: ThemeSwitchBody },
    schemaErrorFormatter: (errors) => clientError('FST_ERR_VALIDATION', validationMessage(errors)),
    onRequest: refuseForeignRequests('This request came from another site, so the theme was not changed.')
  }, (request, reply) => {
    const { theme, redirectTo } = request.body
    app.themeCookie.write(reply, theme)
    app.metrics?.themeSwitched(theme)
    varyByAccept(reply.header('Cache-Control', 'no-store'))
    if (wantsJson(request)) reply.send({ theme })
    else reply.redirect(safeRedirect(redirectTo), 303)
  })
}, { name: 'theme-switch-routes', fastify: '5.x', encapsulate: true, dependencies: ['theme-cookie', 'metrics', 'form-bodies'] })
