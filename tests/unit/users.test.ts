/** The user form's rules (SPEC.md section 5), shared by the server and the browser's form. */
import { describe, expect, it } from 'vitest';
import { isFullName, isInternalEmail, USER_MESSAGES, userFormErrors } from '../../src/domain/users.ts';

const T = '6f1c2d3e-4a5b-4c6d-8e7f-901234567890';
const ok = { fullName: 'Ada Lovelace', email: 'ada@example.org', memberships: [{ tenantId: T, roles: ['Data Processor'], accessExpiresOn: null }] };

describe('user form rules', () => {
  it('accepts a valid user', () => expect(userFormErrors(ok)).toEqual({}));
  it('names each broken rule by field', () => {
    expect(userFormErrors({ ...ok, fullName: 'Ada' })).toEqual({ fullName: USER_MESSAGES.fullName });
    expect(userFormErrors({ ...ok, email: 'ada' })).toEqual({ email: USER_MESSAGES.email });
    expect(userFormErrors({ ...ok, memberships: [] })).toEqual({ memberships: USER_MESSAGES.tenants });
    expect(userFormErrors({ ...ok, memberships: [{ tenantId: T, roles: [] }] })).toEqual({ 'memberships.0.roles': USER_MESSAGES.roles });
    expect(userFormErrors({ ...ok, memberships: [{ tenantId: T, roles: ['View Only', 'Administrator'] }] })).toEqual({ 'memberships.0.roles': USER_MESSAGES.viewOnly });
  });
  it('counts words with letters only', () => {
    expect(isFullName('  José  García ')).toBe(true);
    expect(isFullName('Ada -')).toBe(false);
  });
  it('detects internal staff by domain and its subdomains', () => {
    expect(isInternalEmail('a@staff.example.org', 'example.org')).toBe(true);
    expect(isInternalEmail('a@notexample.org', 'example.org')).toBe(false);
    expect(isInternalEmail('a@example.org', null)).toBe(false);
  });
});
