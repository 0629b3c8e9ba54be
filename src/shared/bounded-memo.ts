// For pure work repeated across requests (user agents, themes, time zones): bounded, oldest first out, so a
// flood of new keys can only push old answers out, never grow the memory. A key longer than `maxKeyChars` is
// computed each time and never kept: no client can fill the memo with large keys.
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
