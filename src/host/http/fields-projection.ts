/*
 * `_fields` as the CMS implements it (rest_filter_response_fields): a comma-separated list of
 * names, dotted paths reach into nested objects, a listed parent keeps all its children, unknown
 * names are ignored, and arrays are projected item by item.
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
  const tree: FieldTree = {}
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
      const child: FieldTree = existing ?? {}
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
    if (!Object.hasOwn(value, name)) continue
    const child = (value as Record<string, unknown>)[name]
    out[name] = rule === true ? child : projectFields(child, rule)
  }
  return out
}
