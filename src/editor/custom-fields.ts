/*
 * Custom fields the editor may write (docs/integration/extensions.md): keys registered by code (`ctx.meta`), each
 * value of its registered type. An unregistered key is refused, so that a typing mistake never
 * becomes a field nobody reads, and so is any key the catalog would never expose (credentials,
 * technical prefixes). A null value removes the field.
 */
import { isDeniedKey } from '../catalog/custom-meta.js'
import type { HostContext } from '../host/context.js'
import type { MetaType, PostType } from '../host/meta/meta-registry.js'
import type { MetaCheck } from '../offers/validation/validate-editor-offer.js'

const MAX_STRING_LENGTH = 2000

const TYPE_NAMES: Readonly<Record<MetaType, { en: string; pl: string }>> = {
  string: { en: `text of at most ${MAX_STRING_LENGTH} characters`, pl: `tekst (najwyżej ${MAX_STRING_LENGTH} znaków)` },
  integer: { en: 'a whole number', pl: 'liczbę całkowitą' },
  number: { en: 'a number', pl: 'liczbę' },
  boolean: { en: 'true or false', pl: 'true albo false' },
}

function ofType(type: MetaType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string' && value.length <= MAX_STRING_LENGTH
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value)
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'boolean':
      return typeof value === 'boolean'
  }
}

export function metaChecker(ctx: Pick<HostContext, 'meta'>, postType: PostType): MetaCheck {
  return (key, value) => {
    const registered = ctx.meta.get(postType, key)
    if (!registered || isDeniedKey(key)) {
      const known = ctx.meta
        .list(postType)
        .map((meta) => meta.key)
        .filter((name) => !isDeniedKey(name))
      const list = known.length > 0 ? known.join(', ') : '—'
      return {
        en: `${JSON.stringify(key)} is not a registered custom field of this kind of entry (registered: ${list})`,
        pl: `${JSON.stringify(key)} nie jest zarejestrowanym polem dodatkowym (zarejestrowane: ${list})`,
      }
    }
    if (value === null || ofType(registered.type, value)) return undefined
    const expected = TYPE_NAMES[registered.type]
    return {
      en: `the value must be ${expected.en}, or null to remove the field`,
      pl: `wartość musi być: ${expected.pl}, albo null, aby usunąć pole`,
    }
  }
}

/** The custom fields the editor may write, per kind of entry, for forms (denied keys left out). */
export function editableCustomFields(ctx: Pick<HostContext, 'meta'>) {
  const of = (postType: PostType) =>
    ctx.meta
      .list(postType)
      .filter((meta) => !isDeniedKey(meta.key))
      .map((meta) => ({
        key: meta.key,
        type: meta.type,
        label: meta.label,
        description: meta.description,
        show_in_rest: meta.showInRest,
      }))
  return { dg_property: of('dg_property'), dg_investment: of('dg_investment') }
}
