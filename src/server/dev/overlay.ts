import { findSourceMap } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Type, type Static } from 'typebox'

export interface Overlay {
  title: string
  entries: Array<{ label: string, text: string }>
}

export const BuildErrorSchema = Type.Object({
  file: Type.Union([Type.String(), Type.Null()]),
  line: Type.Union([Type.Integer(), Type.Null()]),
  column: Type.Union([Type.Integer(), Type.Null()]),
  lineText: Type.Union([Type.String(), Type.Null()]),
  message: Type.String()
})
export type BuildError = Static<typeof BuildErrorSchema>

export function buildFailureOverlay (errors: readonly BuildError[]): Overlay {
  return {
    title: 'The build failed: the last good build is still served',
    entries: errors.map(({ file, line, column, lineText, message }) => ({
      label: file ? [file, line, column].filter((part) => part !== null).join(':') : 'build',
      text: lineText ? `${message}\n\n${line ?? ''} | ${lineText}` : message
    }))
  }
}

export interface Failure {
  error: unknown
  componentStack?: string
}

// Node maps an error's stack itself (--enable-source-maps) but not React's component stack, so that is mapped here.
export function failureOverlay ({ error, componentStack }: Failure, root = process.cwd()): Overlay {
  const local = (text: string) => text.replaceAll(`file://${root}/`, '').replaceAll(`${root}/`, '')
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const entries = [{ label: 'Error', text: message }]
  if (componentStack?.trim()) entries.push({ label: 'Component stack', text: local(inSource(componentStack.replace(/^\n+/, ''))) })
  if (error instanceof Error && error.stack) {
    entries.push({ label: 'Stack', text: local(error.stack.split('\n').filter((line) => !line.includes('/node_modules/')).join('\n')) })
  }
  return { title: componentStack ? 'The page failed to render' : 'The request failed', entries }
}

function inSource (stack: string): string {
  return stack.replace(/\(([^()\s]+):(\d+):(\d+)\)/g, (frame, file: string, line: string, column: string) => {
    const map = findSourceMap(file.startsWith('file:') ? file : pathToFileURL(file).href)
    const entry = map?.findEntry(Number(line) - 1, Number(column) - 1) as { originalSource?: string, originalLine?: number, originalColumn?: number } | undefined
    if (entry?.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return frame
    return `(${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1})`
  })
}
