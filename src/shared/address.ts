/** An address's path: what comes before its query or fragment. Routes, forms and spans match or name a page by it. */
export function pathOf (address: string): string {
  const end = address.search(/[?#]/)
  return end === -1 ? address : address.slice(0, end)
}
