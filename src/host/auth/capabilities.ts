/*
 * Roles are named bundles of capabilities; code asks `userCan(user, capability)` and never tests
 * a role name, so a new role is a new entry here and nothing else changes.
 */

export const CAPABILITIES = ['manage_options', 'dg_read_catalog'] as const
export type Capability = (typeof CAPABILITIES)[number]

export interface RoleDefinition {
  label: string
  capabilities: readonly Capability[]
}

export const ROLES = {
  administrator: { label: 'Administrator', capabilities: ['manage_options', 'dg_read_catalog'] },
  dg_catalog_reader: { label: 'API read-only', capabilities: ['dg_read_catalog'] },
} as const satisfies Record<string, RoleDefinition>

export type RoleName = keyof typeof ROLES

export function isRoleName(value: string): value is RoleName {
  return Object.hasOwn(ROLES, value)
}

export function capabilitiesOf(role: string): readonly Capability[] {
  return isRoleName(role) ? ROLES[role].capabilities : []
}

export function userCan(user: { role: string }, capability: Capability): boolean {
  return capabilitiesOf(user.role).includes(capability)
}
