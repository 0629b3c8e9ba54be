/** The examples' addresses, for their links and their tests. */
export const EXAMPLES_PATH = '/examples'
export const FORM_PATH = '/examples/form'
export const STREAMING_PATH = '/examples/streaming'
export const TIME_PATH = '/examples/time'
