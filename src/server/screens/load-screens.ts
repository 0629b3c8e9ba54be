import type { TObject } from 'typebox'
import type { ScreenRegistry, ScreenView } from '../../ui/define-screen.js'
import { loadScreen } from '../../ui/screen-table.js'
import { defineFormRoute, type FormRoute } from '../forms/define-form-route.js'
import type { ScreenAction } from './action.js'
import type { LoaderTable, PageLoader } from './loader.js'

/** What a screen's .server.ts may export; anything else it exports (constants for its tests) is its own. */
interface ServerModule {
  loader?: PageLoader<any, any>
  action?: ScreenAction<TObject>
}

export interface Screen {
  id: string
  view: ScreenView<any>
}

export interface LoadedScreens {
  registry: ScreenRegistry
  screens: readonly Screen[]
  loaders: LoaderTable
  forms: readonly FormRoute[]
}

// Loaded once, before the app listens: a render never waits for a chunk, and a screen written wrong stops start-up
// with its id named, not a visitor's request.
export async function loadScreens (registry: ScreenRegistry): Promise<LoadedScreens> {
  const loaded = await Promise.all(Object.entries(registry).map(async ([id, entry]) => {
    const view = await imported(id, 'view', () => loadScreen(entry))
    const component = (view as Partial<ScreenView> | undefined)?.component
    if (typeof component !== 'function' && (typeof component !== 'object' || component === null)) {
      throw new TypeError(`the screen "${id}": its view must \`export default defineScreen({ component, … })\``)
    }
    const server = entry.server ? await imported(id, 'server module', entry.server) as ServerModule : {}
    if (entry.server && server.loader === undefined && server.action === undefined) {
      throw new TypeError(`the screen "${id}": its server module exports neither \`loader\` nor \`action\``)
    }
    if (server.loader !== undefined && typeof server.loader !== 'function') throw new TypeError(`the screen "${id}": its \`loader\` is not a function`)
    // The router's own assertion would name neither the screen nor its file.
    if (view.path !== undefined && !view.path.startsWith('/')) throw new TypeError(`the screen "${id}": its path "${view.path}" must begin with /`)
    return { id, view, server }
  }))

  assertOnePerPath(loaded.flatMap(({ id, view }) => view.path ? [[id, view.path] as const] : []), 'have the same path')
  const forms = loaded.flatMap(({ id, view, server }) => server.action ? [[id, actionRoute(id, view, server.action)] as const] : [])
  // Else the router's own "Method 'POST' already declared" names neither screen.
  assertOnePerPath(forms.map(([id, form]) => [id, form.path] as const), 'have forms that post to the same path (give one action a `path` of its own)')

  return {
    registry,
    screens: loaded.map(({ id, view }) => ({ id, view })),
    loaders: new Map(loaded.flatMap(({ id, server }) => server.loader ? [[id, server.loader as PageLoader]] : [])),
    forms: forms.map(([, form]) => form)
  }
}

function assertOnePerPath (paths: ReadonlyArray<readonly [id: string, path: string]>, problem: string): void {
  const byPath = new Map<string, string>()
  for (const [id, path] of paths) {
    const other = byPath.get(path)
    if (other !== undefined) throw new TypeError(`the screens "${other}" and "${id}" ${problem}, ${path}`)
    byPath.set(path, id)
  }
}

/**
 * A module that throws as Node imports it (a package that reads `window` or `document` at its top level) would
 * otherwise stop start-up with a stack naming only that package, not the screen that imports it.
 */
async function imported<Module> (id: string, part: 'view' | 'server module', load: () => Promise<Module>): Promise<Module> {
  try {
    return await load()
  } catch (error) {
    const hint = part === 'view' ? ' (the server renders a view too: a browser-only package is imported with `import()` in a `useEffect`)' : ''
    throw new Error(`the screen "${id}": its ${part} could not be imported${hint}: ${String((error as Error)?.message ?? error)}`, { cause: error })
  }
}

function actionRoute (id: string, view: ScreenView, action: NonNullable<ServerModule['action']>): FormRoute {
  try {
    return defineFormRoute({ ...action, page: { id, ...(view.path ? { path: view.path } : {}) } })
  } catch (error) {
    throw new TypeError(`the screen "${id}": its action: ${(error as Error).message}`, { cause: error })
  }
}
