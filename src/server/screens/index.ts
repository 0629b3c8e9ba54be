// What a screen's .server.ts imports: its loader's and its form's definitions and their types.
export { defineAction, type ScreenAction } from './action.js'
export { defineLoader, type LoaderContext, type PageLoader, type RouteParams } from './loader.js'
export type { FormContext, FormOutcome } from '../forms/define-form-route.js'
