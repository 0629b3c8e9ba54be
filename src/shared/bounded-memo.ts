/**
 * Remembers `compute`'s answers for the last `limit` distinct keys (oldest
 * first out), for pure work that repeats across requests: the same few user
 * agents, themes and time zones come back again and again, while a flood of
 * new ones can only push old answers out, never grow the memory.
 */
export function boundedMemo<Value> (limit: number, compute: (key: string) => Value): (key: string) => Value {
  const answers = new Map<string, Value>()
  return (key) => {
    const known = answers.get(key)
    if (known !== undefined || answers.has(key)) return known as Value
    const value = compute(key)
    if (answers.size >= limit) answers.delete(answers.keys().next().value as string)
    answers.set(key, value)
    return value
  }
}
