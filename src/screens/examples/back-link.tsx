import { EXAMPLES_PATH } from './paths.js'

/** Every example ends with the way back to the list. */
export function BackToExamples () {
  return <p><a href={EXAMPLES_PATH}>Back to the examples</a></p>
}
