import type { TObject } from 'typebox'
import type { FormRouteOptions } from '../forms/define-form-route.js'

/** A screen's form, `export const action = defineAction({ schema, handle })` in its .server.ts; it posts to the screen's path. */
export type ScreenAction<S extends TObject> = Omit<FormRouteOptions<S>, 'page'>

export function defineAction<S extends TObject> (action: ScreenAction<S>): ScreenAction<S> {
  return action
}
