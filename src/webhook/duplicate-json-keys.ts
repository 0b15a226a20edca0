/*
 * A JSON object that names a key twice has no one meaning: JSON.parse keeps the last value, other
 * parsers (a CRM's, a proxy's, an audit tool's) the first or an error. The signed body and what
 * the service writes must be the same reading, so such a body is refused before anything else.
 */

/** The first key named twice in one object of a JSON text, or undefined (also for text that is no JSON). */
export function firstDuplicateKey(text: string): string | undefined {
  const objects: Array<Set<string> | null> = []
  let expectingKey = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      let end = i + 1
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      if (expectingKey) {
        const keys = objects.at(-1)
        let key: string
        try {
          key = JSON.parse(text.slice(i, end + 1)) as string
        } catch {
          return undefined
        }
        if (keys?.has(key)) return key
        keys?.add(key)
        expectingKey = false
      }
      i = end
    } else if (c === '{') {
      objects.push(new Set())
      expectingKey = true
    } else if (c === '[') {
      objects.push(null)
    } else if (c === '}' || c === ']') {
      objects.pop()
    } else if (c === ',') {
      expectingKey = objects.at(-1) instanceof Set
    }
  }
  return undefined
}
