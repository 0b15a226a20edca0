/*
 * Roles are named bundles of capabilities; code asks `userCan(user, capability)` and never tests
 * a role name, so a new role is a new entry here and nothing else changes. Every route declares
 * the one capability it needs (`requireCapability` in ../http/authenticate.ts); the table of
 * which role holds which is ROLES below (docs/decisions/roles-and-capabilities.md).
 */

/** What each capability lets a user do; the panel and docs/security.md describe them the same way. */
export const CAPABILITY_DESCRIPTIONS = {
  manage_options:
    'Administration: users and their application passwords, the webhook key, alert channels, the licence, site options and security settings',
  dg_read_catalog: 'The published catalog API (the website)',
  dg_read_all:
    'Reading everything the panel shows but the administration: catalog, imports, sources, publication, its history and audit, settings without secrets, the audit log, exports',
  dg_read_administration:
    'Reading the administration: users, their application passwords (never a secret) and the alert channels',
  dg_edit_catalog:
    'Editing the catalog: investments, offers, media, developers, locations, website prices, price changes',
  dg_import: 'Offer and report imports, scheduled sources and their runs',
  dg_publish: 'Publishing (and its preflight) and the publication settings',
} as const

export type Capability = keyof typeof CAPABILITY_DESCRIPTIONS
export const CAPABILITIES = Object.keys(CAPABILITY_DESCRIPTIONS) as Capability[]

export interface RoleDefinition {
  label: string
  capabilities: readonly Capability[]
}

export const ROLES = {
  // manage_options means everything: an administrator holds every capability
  administrator: { label: 'Administrator', capabilities: CAPABILITIES },
  dg_operator: {
    label: 'Operator',
    capabilities: ['dg_read_all', 'dg_edit_catalog', 'dg_import', 'dg_publish'],
  },
  dg_auditor: { label: 'Auditor', capabilities: ['dg_read_all', 'dg_read_administration'] },
  dg_catalog_reader: { label: 'API read-only', capabilities: ['dg_read_catalog'] },
} as const satisfies Record<string, RoleDefinition>

export type RoleName = keyof typeof ROLES
export const ROLE_NAMES = Object.keys(ROLES) as RoleName[]

export function isRoleName(value: string): value is RoleName {
  return Object.hasOwn(ROLES, value)
}

export function capabilitiesOf(role: string): readonly Capability[] {
  return isRoleName(role) ? ROLES[role].capabilities : []
}

export function userCan(user: { role: string }, capability: Capability): boolean {
  return capabilitiesOf(user.role).includes(capability)
}
