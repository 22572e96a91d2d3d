import { describe, expect, it } from 'vitest';
import { globalErrorMessage, MESSAGES } from '../../src/domain/errors.ts';
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
