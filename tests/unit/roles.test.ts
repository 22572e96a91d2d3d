import { describe, expect, it } from 'vitest';
import { can, effectiveRoles, isAccessExpired, policiesFor, ROLE_POLICIES, ROLES } from '../../src/domain/roles.ts';

describe('role and policy table', () => {
  it('gives the Administrator every action on every resource', () => {
    const p = policiesFor(['Administrator']);
    for (const r of ['formula', 'datasource', 'history', 'usermanagement', 'records'] as const) {
      expect(can(p, r, 'view')).toBe(true);
      expect(can(p, r, 'edit')).toBe(true);
    }
  });

  it('gives each role what SPEC.md section 6 says', () => {
    expect(can(policiesFor(['Power User']), 'datasource', 'edit')).toBe(true);
    expect(can(policiesFor(['Power User']), 'formula', 'edit')).toBe(true);
    expect(can(policiesFor(['Power User']), 'usermanagement', 'view')).toBe(false);
    expect(can(policiesFor(['Connection Manager']), 'datasource', 'edit')).toBe(true);
    expect(can(policiesFor(['Connection Manager']), 'formula', 'view')).toBe(false);
    expect(can(policiesFor(['Formula Producer']), 'formula', 'create')).toBe(true);
    expect(can(policiesFor(['Formula Producer']), 'formula', 'run')).toBe(true);
    expect(can(policiesFor(['Formula Producer']), 'datasource', 'edit')).toBe(false);
    expect(can(policiesFor(['Data Processor']), 'records', 'send')).toBe(true);
    expect(can(policiesFor(['Data Processor']), 'formula', 'edit')).toBe(false);
    expect(can(policiesFor(['User Manager']), 'usermanagement', 'edit')).toBe(true);
    expect(can(policiesFor(['User Manager']), 'formula', 'view')).toBe(false);
  });

  it('lets View Only see but never edit anything', () => {
    const p = policiesFor(['View Only']);
    expect(can(p, 'formula', 'view')).toBe(true);
    for (const [, actions] of Object.entries(p)) expect(actions).toEqual(['view']);
  });

  it('makes View Only override any other role', () => {
    expect(effectiveRoles(['Administrator', 'View Only'])).toEqual(['View Only']);
    expect(policiesFor(['Administrator', 'View Only'])).toEqual(ROLE_POLICIES['View Only']);
  });

  it('stacks other roles', () => {
    const p = policiesFor(['Connection Manager', 'User Manager']);
    expect(can(p, 'datasource', 'edit')).toBe(true);
    expect(can(p, 'usermanagement', 'edit')).toBe(true);
    expect(can(p, 'formula', 'view')).toBe(false);
  });

  it('grants nothing for no roles or unknown roles', () => {
    expect(policiesFor([])).toEqual({});
    expect(policiesFor(['Superhero'])).toEqual({});
  });

  it('knows all seven roles', () => {
    expect(ROLES).toHaveLength(7);
    for (const r of ROLES) expect(ROLE_POLICIES[r]).toBeDefined();
  });

  it('ends temporary access at its expiry date', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(isAccessExpired(null, now)).toBe(false);
    expect(isAccessExpired('2026-11-22T12:00:01Z', now)).toBe(false);
    expect(isAccessExpired('2026-11-22T12:00:00Z', now)).toBe(true);
    expect(isAccessExpired('2026-11-21T00:00:00Z', now)).toBe(true);
  });
});
