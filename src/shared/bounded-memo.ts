// Oldest out first, and keys over `maxKeyChars` never kept: no flood of new or large keys can grow the memory.
export function boundedMemo<Value> (limit: number, compute: (key: string) => Value, maxKeyChars = Infinity): (key: string) => Value {
  const answers = new Map<string, Value>()
  return (key) => {
    if (key.length > maxKeyChars) return compute(key)
    const known = answers.get(key)
    if (known !== undefined || answers.has(key)) return known as Value
    const value = compute(key)
    if (answers.size >= limit) answers.delete(answers.keys().next().value as string)
    answers.set(key, value)
    return value
  }
}
