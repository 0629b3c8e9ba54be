import type { PageDefinition } from './page-table.js'

/**
 * Ties a page's data type to its component's loader. Apart from the page
 * table, so a file of its own can define a page while the table imports that
 * file (a cycle through page-table.ts would leave the table's entry undefined).
 */
export function definePage<Data> (page: PageDefinition<Data>): PageDefinition<Data> {
  return page
}
