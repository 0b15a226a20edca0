import { describe, expect, it } from 'vitest'

import { HookRegistry } from '../../../src/host/hooks/hooks.js'

describe('typed filters and actions', () => {
  it('applies filters by priority, then in registration order, passing each result on', async () => {
    const hooks = new HookRegistry()
    hooks.addFilter('dg_rest_business_meta_keys', (keys) => [...keys, 'late'], 20)
    hooks.addFilter('dg_rest_business_meta_keys', (keys, postType) => [...keys, `first:${postType}`], 5)
    hooks.addFilter('dg_rest_business_meta_keys', (keys) => [...keys, 'default-a'])
    hooks.addFilter('dg_rest_business_meta_keys', async (keys) => [...keys, 'default-b'])
    const keys = await hooks.applyFilters('dg_rest_business_meta_keys', ['energy_class'], 'dg_property')
    expect(keys).toEqual(['energy_class', 'first:dg_property', 'default-a', 'default-b', 'late'])
  })

  it('returns the value unchanged when nothing is registered, and stops calling a removed callback', async () => {
    const hooks = new HookRegistry()
    const data = { price: '1 000,00 zł' }
    expect(await hooks.applyFilters('dg_frontend_property_data', data, 7)).toBe(data)
    const remove = hooks.addFilter('dg_frontend_property_data', (value, id) => ({ ...value, id }))
    expect(await hooks.applyFilters('dg_frontend_property_data', data, 7)).toEqual({ price: '1 000,00 zł', id: 7 })
    remove()
    expect(await hooks.applyFilters('dg_frontend_property_data', data, 7)).toBe(data)
  })

  it('runs actions in priority order with their arguments', async () => {
    const hooks = new HookRegistry()
    const calls: string[] = []
    hooks.addAction('dg_after_property_details', (id) => void calls.push(`b${id}`), 11)
    hooks.addAction('dg_after_property_details', (id) => void calls.push(`a${id}`), 9)
    await hooks.doAction('dg_after_property_details', 42)
    expect(calls).toEqual(['a42', 'b42'])
  })

  it('refuses a non-integer priority', () => {
    const hooks = new HookRegistry()
    expect(() => hooks.addAction('dg_before_listing', () => undefined, 1.5)).toThrow(TypeError)
  })
})
