import t from 'tap'
import { boundedMemo } from '../../src/shared/bounded-memo.js'

t.test('an answer is computed once per key while the key is remembered', async (t) => {
  const calls: string[] = []
  const length = boundedMemo(2, (key) => { calls.push(key); return key.length })
  t.equal(length('abc'), 3)
  t.equal(length('abc'), 3)
  t.same(calls, ['abc'], 'computed once')
})

t.test('at most `limit` answers are kept, the oldest going first', async (t) => {
  const calls: string[] = []
  const echo = boundedMemo(2, (key) => { calls.push(key); return key === 'falsy' ? false : key })
  echo('a')
  echo('falsy')
  t.equal(echo('falsy'), false, 'a falsy answer is remembered too')
  echo('c')
  echo('falsy')
  echo('a')
  t.same(calls, ['a', 'falsy', 'c', 'a'], '"a", the oldest, was forgotten when "c" came; "falsy" was not')
})

t.test('a key longer than the bound is computed each time and never kept', async (t) => {
  const calls: string[] = []
  const length = boundedMemo(2, (key) => { calls.push(key); return key.length }, 4)
  t.equal(length('abcdef'), 6)
  t.equal(length('abcdef'), 6)
  t.equal(length('abc'), 3)
  t.equal(length('abc'), 3)
  t.same(calls, ['abcdef', 'abcdef', 'abc'], 'the long key twice, the short one once')
})
