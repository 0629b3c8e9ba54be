import type { PageDefinition } from './page-table.js'

// Apart from the page table, so a file of its own can define a page the table imports: a cycle through
// page-table.ts would leave the table's entry undefined.
export function definePage<Data> (page: PageDefinition<Data>): PageDefinition<Data> {
  return page
}
