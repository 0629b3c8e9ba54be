export function pathOf (address: string): string {
  const end = address.search(/[?#]/)
  return end === -1 ? address : address.slice(0, end)
}
