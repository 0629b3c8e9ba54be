import type { PageDefinition } from './page-table.js'

/**
 * Ties a page's data type to its component. Apart from the page table, so a
 * page's own file can define it while the table imports that file (a cycle
 * through page-table.ts would leave the table's entry undefined).
 */
export function definePage<Data> (page: PageDefinition<Data>): PageDefinition<Data> {
  return page
}
