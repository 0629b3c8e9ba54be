import type { CookieSerializeOptions } from '@fastify/cookie'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Static, TObject } from 'typebox'
import { pathOf } from '../../shared/address.js'
import type { FieldErrors, FormErrorBody, FormState, FormSuccessBody } from '../../shared/form-state.js'
import { safeRedirect } from '../../shared/safe-redirect.js'
import { clientError, ERRORS, errorBody, SEND_AGAIN } from '../errors.js'
import type { FlashToastInput } from '../cookies/flash-toast.js'
import type { Toast } from '../../shared/page-data.js'
import { HoneypotError } from '../security/honeypot.js'
import { bodyTypeOf, varyByAccept, wantsJson } from '../http/negotiation.js'
import { readRequestInfo } from '../http/request-info.js'
import { FORM_TYPE, refuseForeignRequests } from './form-request.js'
import { FormSchema } from './form-schema.js'

/** Clear-Site-Data's values for the pages the browser fetched or prerendered ahead of a click, and nothing else. */
const SPECULATIONS_STALE = '"prefetchCache", "prerenderCache"'

export interface FormContext<Values> {
  values: Values
  request: FastifyRequest
  reply: FastifyReply
  /** Sets a cookie with the app's attributes (Path=/, HttpOnly, SameSite=Lax, Secure in production) unless `options` says otherwise. */
  setCookie (name: string, value: string, options?: CookieSerializeOptions): void
}

export interface FormOutcome<Values> {
  /** Refuses the answers as the schema would: one message per field, the form shown again (422). */
  errors?: Partial<Record<keyof Values & string, string>>
  /** A path on this site; by default the form's page (for `/notes/:id`, the note posted from). */
  redirectTo?: string
  toast?: FlashToastInput
}

export interface FormRouteOptions<S extends TObject> {
  /** The page the form is on: shown again, with the messages and the answers, when the answers are refused. */
  page: { id: string, path?: string }
  /** Where the form posts; the page's own address by default (so a reload stays on it). */
  path?: string
  /** The form's fields. Messages come from each field's `errorMessage`, else its `description`, else a plain default; `writeOnly: true` marks one never sent back (a password). */
  schema: S
  /** Runs only for answers that passed every check: same site, a person, the schema. One that sends the reply itself has the last word. */
  handle: (context: FormContext<Static<S>>) => FormOutcome<Static<S>> | undefined | void | Promise<FormOutcome<Static<S>> | undefined | void>
  bodyLimit?: number
  /** Why the form takes fields its schema does not name. Without it the schema is closed: an unnamed field is refused. */
  acceptUnknownFields?: string
}

export type FormRoute = ((app: FastifyInstance) => Promise<void>) & { readonly path: string }

/** Bounds on the unexpected field names a refusal logs: the names are the client's, and a log line stays a line. */
const LOGGED_NAMES = 5
const LOGGED_NAME_LENGTH = 40

function unexpectedFields (names: readonly string[] = []) {
  if (names.length === 0) return {}
  const shown = names.slice(0, LOGGED_NAMES).map((name) => name.length > LOGGED_NAME_LENGTH ? `${name.slice(0, LOGGED_NAME_LENGTH)}…` : name)
  return { unexpectedFields: shown, unexpectedFieldCount: names.length }
}

/** The `:name` parameters of a Fastify route path (`/notes/:id(^\\d+)` has `id`). */
const paramNames = (path = ''): string[] => [...path.matchAll(/:(\w+)/g)].map(([, name]) => name!)

const FORM_ROUTE_DEPENDENCIES = ['honeypot', 'flash-toasts', 'cookies', 'form-bodies', 'page-loading', 'metrics']

// Cross-site and media-type checks before the body is read, then the honeypot, then the schema, and only then
// `handle`; a refusal shows the page again with a 422 (docs/decisions/forms-answer-422.md).
export function defineFormRoute<S extends TObject> (options: FormRouteOptions<S>): FormRoute {
  const { page, schema, handle, bodyLimit, acceptUnknownFields } = options
  const path = options.path ?? page.path
  if (!path) throw new TypeError(`defineFormRoute: the page "${page.id}" has no path; give the route a \`path\`.`)
  // A refusal runs the page's loader with the form route's parameters: one it lacks was undefined, typed a string.
  const missing = paramNames(page.path).filter((name) => !paramNames(path).includes(name))
  if (missing.length > 0) throw new TypeError(`the form posts to ${path}, which lacks ${missing.map((name) => `:${name}`).join(', ')} of its page's path ${page.path ?? ''}: a refused form shows the page again, its loader reading the form's parameters; give the form's path the same ones`)
  const form = new FormSchema(schema, { acceptUnknownFields })
  // An action at an address of its own cannot tell which page of a parametric path it came from: home.
  function pageAddress (request: FastifyRequest): string {
    if (!page.path) return '/'
    if (!page.path.includes(':')) return page.path
    return path === page.path ? pathOf(request.url) : '/'
  }

  const route = async (app: FastifyInstance) => {
    const { honeypot, flashToasts, cookieAttributes } = app
    const ignore = new Set([honeypot.nameFieldName, honeypot.validFromFieldName])

    async function showAgain (request: FastifyRequest, reply: FastifyReply, status: number, body: Record<string, unknown>, refusal: Omit<FormState, 'action' | 'values'>) {
      const requestInfo = readRequestInfo(request, path === page.path ? request.url : pageAddress(request))
      const state: FormState = { action: pathOf(request.url), ...refusal, values: form.keep(body) }
      await reply.renderPage(page.id, { status, form: state, requestInfo })
    }

    async function refuse (request: FastifyRequest, reply: FastifyReply, body: Record<string, unknown>, errors: FieldErrors, message: string = ERRORS.FORM_INVALID.message, unexpected?: string[]) {
      // Field names only, never what was typed; the unexpected ones find a `<Field>` the schema forgot.
      request.log.info({ code: 'FORM_INVALID', statusCode: 422, fields: Object.keys(errors), ...unexpectedFields(unexpected) }, message)
      if (wantsJson(request)) {
        const answer: FormErrorBody = { ...errorBody({ status: 422, code: 'FORM_INVALID', message }), errors }
        return reply.status(422).send(answer)
      }
      // The token the honeypot accepted, not a fresh one: corrected and sent again at once, the form is not too fast.
      const token = body[honeypot.validFromFieldName]
      await showAgain(request, reply, 422, body, { message, errors, ...(typeof token === 'string' ? { fields: { [honeypot.validFromFieldName]: token } } : {}) })
      return reply
    }

    // The work is done by now: a refused toast is the engineer's error, logged; the visitor still gets the success.
    function setToast (request: FastifyRequest, reply: FastifyReply, input: FlashToastInput): Toast | undefined {
      try {
        return flashToasts.set(reply, input)
      } catch (error) {
        request.log.error({ err: error, route: path }, 'the form\'s toast was refused; the form succeeded without it')
        return undefined
      }
    }

    app.post(path, {
      ...(bodyLimit === undefined ? {} : { bodyLimit }),
      // A 303 or JSON; a refusal shown to a browser is a page, with the documents' headers.
      config: { document: false },
      onRequest: refuseForeignRequests()
    }, async (request, reply) => {
      const { body } = request
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw clientError('FORM_NOT_AN_OBJECT')
      const fields = body as Record<string, unknown>
      varyByAccept(reply.header('Cache-Control', 'no-store'))

      try {
        honeypot.check(fields, page.id)
      } catch (error) {
        if (!(error instanceof HoneypotError)) throw error
        // Answered here rather than by the error handler, so counted here.
        app.metrics?.honeypotRejected(error.code)
        request.log.info({ code: error.code, statusCode: error.statusCode }, error.message)
        const message = SEND_AGAIN[error.code]
        if (wantsJson(request)) {
          // The form in the page keeps its answers: with a fresh token, sending it again works, as the words say.
          const token = honeypot.getInputProps(page.id).encryptedValidFrom
          const answer: FormErrorBody = { ...errorBody({ status: error.statusCode, code: error.code, message }), errors: {}, fields: { [honeypot.validFromFieldName]: token } }
          return reply.status(error.statusCode).send(answer)
        }
        await showAgain(request, reply, error.statusCode, fields, { message, errors: {} })
        return reply
      }

      const read = form.read(fields, { fromForm: bodyTypeOf(request).type === FORM_TYPE, ignore })
      if (!read.ok) return refuse(request, reply, fields, read.errors, read.message, read.unexpected)

      const outcome = await handle({
        values: read.value,
        request,
        reply,
        setCookie: (name, value, cookieOptions) => { reply.setCookie(name, value, { ...cookieAttributes, ...cookieOptions }) }
      })
      if (reply.sent) return reply
      const errors = outcome?.errors as FieldErrors | undefined
      if (errors && Object.keys(errors).length > 0) return refuse(request, reply, fields, errors)

      const toast = outcome?.toast ? setToast(request, reply, outcome.toast) : undefined
      const redirectTo = safeRedirect(outcome?.redirectTo ?? pageAddress(request))
      // Pages fetched or prerendered ahead are stale now, and would lack the toast: Chromium drops them (docs/navigation.md).
      // Beside any the handler asked for (a sign-out's "cache"), not in its place.
      const asked = reply.getHeader('clear-site-data')
      reply.header('Clear-Site-Data', asked === undefined ? SPECULATIONS_STALE : `${String(asked)}, ${SPECULATIONS_STALE}`)
      if (!wantsJson(request)) return reply.redirect(redirectTo, 303)
      const answer: FormSuccessBody = { ok: true, redirectTo, ...(toast ? { toast } : {}) }
      return reply.send(answer)
    })
  }
  // Encapsulated as a route is, but with its dependencies declared: Fastify says at start-up which one is missing.
  const plugin = fp(route, { name: `form-route ${path}`, fastify: '5.x', encapsulate: true, dependencies: FORM_ROUTE_DEPENDENCIES })
  return Object.assign(plugin, { path })
}
