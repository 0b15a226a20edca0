// The column assignments of the offer import, remembered in this browser per file shape: a file
// with the same set of header names gets its assignment back, and a file of another shape never
// inherits one that names columns it lacks (docs/operator/import.md).

const STORAGE_KEY = 'dg-admin.import-mappings'
/** The one assignment kept before shapes were told apart: read once, as the last one used. */
const LEGACY_STORAGE_KEY = 'dg-admin.import-mapping'
/** Shapes kept; the least recently used goes first. */
const SHAPES_KEPT = 20

/**
 * A file's shape: the set of its header names, in any order.
 * @param {string[]} headers
 */
export function fileShape(headers) {
  return JSON.stringify([...new Set(headers)].sort())
}

/** @returns {{ last: Record<string, string>, shapes: Record<string, { mapping: Record<string, string>, used: number }> }} */
function load() {
  const memory = { last: {}, shapes: {} }
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null')
    if (stored && typeof stored === 'object') {
      if (isMapping(stored.last)) memory.last = stored.last
      if (stored.shapes && typeof stored.shapes === 'object')
        for (const [shape, entry] of Object.entries(stored.shapes))
          if (entry && isMapping(entry.mapping))
            memory.shapes[shape] = { mapping: entry.mapping, used: +entry.used || 0 }
      return memory
    }
    const legacy = JSON.parse(localStorage.getItem(LEGACY_STORAGE_KEY) ?? 'null')
    if (isMapping(legacy)) memory.last = legacy
  } catch {
    // a damaged entry is forgotten, never an error of the page
  }
  return memory
}

function isMapping(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((header) => typeof header === 'string')
  )
}

/** The last assignment sent from this browser, whatever the file: what the fields start with. */
export function lastMapping() {
  return load().last
}

/**
 * The assignment remembered for files of this shape, if any.
 * @param {string[]} headers
 * @returns {Record<string, string> | null}
 */
export function mappingForShape(headers) {
  return load().shapes[fileShape(headers)]?.mapping ?? null
}

/**
 * Remembers the assignment sent with a file: as the last one, and for the file's shape when its
 * headers are known.
 * @param {Record<string, string>} mapping
 * @param {string[]} headers
 */
export function rememberMapping(mapping, headers) {
  const memory = load()
  memory.last = mapping
  if (headers.length > 0) {
    memory.shapes[fileShape(headers)] = { mapping, used: Date.now() }
    const shapes = Object.entries(memory.shapes).sort(([, a], [, b]) => b.used - a.used)
    memory.shapes = Object.fromEntries(shapes.slice(0, SHAPES_KEPT))
  }
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(memory))
    localStorage.removeItem(LEGACY_STORAGE_KEY)
  } catch {
    // a full or disabled storage only loses the memory
  }
}
