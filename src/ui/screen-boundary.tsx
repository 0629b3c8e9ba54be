import { Component, type ReactNode } from 'react'

interface ScreenBoundaryProps {
  /** The server-error screen, shown in place of the one that threw. */
  fallback: ReactNode
  children: ReactNode
}

/**
 * A screen that throws while rendering in the browser (hydration included) would have React unmount the whole
 * document: header, theme and stylesheet. Caught here, the shell stays and the screen's place shows the fallback;
 * React still reports the error to the console. On the server, React ignores error boundaries: the page is a 500.
 */
export class ScreenBoundary extends Component<ScreenBoundaryProps, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError () {
    return { failed: true }
  }

  override render () {
    return this.state.failed ? this.props.fallback : this.props.children
  }
}
