/*
 * `_fields` as the CMS implements it (rest_filter_response_fields): a comma-separated list of
 * names, dotted paths reach into nested objects, a listed parent keeps all its children, unknown
 * names are ignored, and arrays are projected item by item.
 *
 * The names are the caller's: the tree's nodes have no prototype, so `_fields=__proto__.x` is a
 * name like any other. With plain objects it walked into Object.prototype and set `x` on every
 * object of the process (any catalog reader could; found by the fuzz suite, it made the metrics
 * and the schema compiler fail on every later request).
 */

export interface FieldTree {
  [name: string]: FieldTree | true
}

export function parseFieldList(raw: string | undefined): FieldTree | null {
  if (raw === undefined) return null
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  if (entries.length === 0) return null
  const tree: FieldTree = Object.create(null) as FieldTree
  for (const entry of entries) {
    const parts = entry.split('.').filter(Boolean)
    let node: FieldTree = tree
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string
      const existing = node[part]
      if (existing === true) break // a parent already keeps everything below it
      if (i === parts.length - 1) {
        node[part] = true
        break
      }
      const child: FieldTree = existing ?? (Object.create(null) as FieldTree)
      node[part] = child
      node = child
    }
  }
  return tree
}

export function projectFields(value: unknown, tree: FieldTree | null): unknown {
  if (tree === null) return value
  if (Array.isArray(value)) return value.map((item) => projectFields(item, tree))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [name, rule] of Object.entries(tree)) {
    if (name === '__proto__' || !Object.hasOwn(value, name)) continue
    const child = (value as Record<string, unknown>)[name]
    out[name] = rule === true ? child : projectFields(child, rule)
  }
  return out
}
