import { describe, expect, it } from 'vitest';
import { globalErrorMessage, MESSAGES, requestFailure } from '../../src/domain/errors.ts';
import { identityErrorKind, IDENTITY_ERRORS, subdomainFromHost } from '../../src/domain/identity.ts';

describe('global HTTP error handling', () => {
  it('maps a problem title to its catalogue message', () => {
    expect(globalErrorMessage({ status: 404, problem: { title: 'not-found' } })).toBe(MESSAGES.notFound);
    expect(globalErrorMessage({ status: 403, problem: { title: 'forbidden' } })).toBe('You do not have permission to do this.');
  });
  it('falls back to the generic message for an unknown title', () => {
    expect(globalErrorMessage({ status: 409, problem: { title: 'something-new' } })).toBe('An error occurred.');
    expect(globalErrorMessage({ status: 503, problem: {} })).toBe('A server error occured. Please try again later.');
  });
  it('does not show status 400 globally', () => {
    expect(globalErrorMessage({ status: 400, problem: { title: 'bad-request' } })).toBeNull();
  });
  it('lets a request opt out', () => {
    expect(globalErrorMessage({ status: 500, problem: {}, silent: true })).toBeNull();
  });
  it('routes a formula request to the per-formula message', () => {
    expect(globalErrorMessage({ status: 500, problem: {}, formula: { id: 'f1', name: 'Gifts to RE NXT' } })).toBe('An error related to Gifts to RE NXT occurred.');
  });
  it('says a refusal is one, even from a formula\'s request, never an outage', () => {
    const formula = { id: 'f1', name: 'Gifts to RE NXT' };
    expect(globalErrorMessage({ status: 403, problem: { title: 'no-edit-permission' }, formula })).toBe('You do not have editing permission');
    expect(globalErrorMessage({ status: 403, problem: { title: 'forbidden' }, formula })).toBe('You do not have permission to do this.');
    expect(globalErrorMessage({ status: 403, problem: {} })).toBe('You do not have permission to do this.');
  });
});

describe('why a request failed (one mapping for every screen that loads)', () => {
  const failed = (status: number, title?: string) => ({ status, problem: title ? { title } : {} });
  it('a 403 is a refusal, in its own words or the caller\'s, never the service or the system being down', () => {
    expect(requestFailure(failed(403, 'forbidden'), { refused: 'You may not read this.' })).toEqual({ kind: 'refused', message: 'You may not read this.' });
    expect(requestFailure(failed(403, 'no-edit-permission'), { refused: 'You may not read this.' })).toEqual({ kind: 'refused', message: MESSAGES.noEditPermission });
    expect(requestFailure(failed(403, 'no-tenant-access'))).toEqual({ kind: 'refused', message: 'You do not have access to this tenant.' });
    expect(requestFailure(failed(403, 'something-new'))).toEqual({ kind: 'refused', message: 'You do not have permission to do this.' });
    expect(requestFailure(failed(401))).toEqual({ kind: 'refused', message: 'Sign-in required. Please sign in again.' });
  });
  it('a connector\'s failure is the system; no answer or a 5xx is our service', () => {
    expect(requestFailure(failed(502, 'connection-error'))).toEqual({ kind: 'system' });
    expect(requestFailure(failed(422, 'connection-failed'))).toEqual({ kind: 'system' });
    expect(requestFailure(failed(500, 'server-error'))).toEqual({ kind: 'service' });
    expect(requestFailure(failed(0, 'network'))).toEqual({ kind: 'service' });
    expect(requestFailure(new TypeError('Failed to fetch'))).toEqual({ kind: 'service' });
    expect(requestFailure(failed(404, 'not-found'))).toEqual({ kind: 'other' });
  });
});

describe('identity errors', () => {
  it('classifies each identity error of SPEC.md section 8', () => {
    expect(identityErrorKind(new Error('Invalid state'))).toBe('invalid-state');
    expect(identityErrorKind({ error: 'timeout', name: 'TimeoutError' })).toBe('timeout');
    expect(identityErrorKind({ error: 'cancelled', name: 'PopupCancelledError' })).toBe('popup-closed');
    expect(identityErrorKind({ error: 'login_required' })).toBe('login-required');
    expect(identityErrorKind({ error: 'missing_refresh_token', name: 'MissingRefreshTokenError' })).toBe('missing-refresh-token');
    expect(identityErrorKind({ error: 'mfa_required', name: 'MfaRequiredError' })).toBe('mfa-required');
    expect(IDENTITY_ERRORS['invalid-state']).toContain('Invalid state');
  });
});

describe('subdomain from the host name', () => {
  it('reads the organisation label and falls back where there is none', () => {
    expect(subdomainFromHost('demo.localhost', 'x')).toBe('demo');
    expect(subdomainFromHost('riverside.tributary.org', 'x')).toBe('riverside');
    expect(subdomainFromHost('localhost', 'demo')).toBe('demo');
    expect(subdomainFromHost('127.0.0.1', 'demo')).toBe('demo');
    expect(subdomainFromHost('tributary.org', 'demo')).toBe('demo');
    expect(subdomainFromHost('www.tributary.org', 'demo')).toBe('demo');
  });
});
