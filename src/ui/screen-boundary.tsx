import { Component, type ReactNode } from 'react'

interface ScreenBoundaryProps {
  fallback: ReactNode
  children: ReactNode
}

/** Without it, a screen that throws in the browser (hydration included) has React unmount the whole document. React
 * ignores error boundaries on the server: there the page is a 500. */
export class ScreenBoundary extends Component<ScreenBoundaryProps, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError () {
    return { failed: true }
  }

  override render () {
    return this.state.failed ? this.props.fallback : this.props.children
  }
}
