import type { FormRoute } from './define-form-route.js'

/** Every form route of the app, registered by buildApp; each is one defineFormRoute beside its schema. */
export const FORM_ROUTES: readonly FormRoute[] = []
