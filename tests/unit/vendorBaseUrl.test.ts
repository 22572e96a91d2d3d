/**
 * CONNECTOR_BASE_URL_<SYSTEM> points a vendor's calls at a local fake in tests; production
 * refuses it, at start and at each call, so real credentials never go to whoever answers there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { ConnectionProblem } from '../../server/connectors/connector.ts';
import { baseUrlOverride, vendorUrl } from '../../server/connectors/vendorHttp.ts';

const saved = { url: process.env.CONNECTOR_BASE_URL_RENXT, env: process.env.NODE_ENV };
afterEach(() => {
  for (const [k, v] of [['CONNECTOR_BASE_URL_RENXT', saved.url], ['NODE_ENV', saved.env]] as const) {
    if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
});

describe('vendor base URL overrides', () => {
  it('redirect a vendor\'s calls, keeping the path, outside production', () => {
    process.env.CONNECTOR_BASE_URL_RENXT = 'http://127.0.0.1:9999/';
    delete process.env.NODE_ENV;
    expect(vendorUrl('renxt', 'https://api.sky.blackbaud.com/constituent/v1/constituents?limit=1')).toEqual({
      url: 'http://127.0.0.1:9999/constituent/v1/constituents?limit=1', trusted: true,
    });
  });

  it('are refused in production: the server does not start, and no call goes there', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', CONNECTOR_BASE_URL_RENXT: 'http://127.0.0.1:9999' }))
      .toThrow('CONNECTOR_BASE_URL_RENXT cannot be set in production: vendor base URLs are redirected only for tests against local fakes');
    expect(() => loadConfig({ NODE_ENV: 'production', CONNECTOR_BASE_URL_RENXT: '' })).not.toThrow();
    process.env.CONNECTOR_BASE_URL_RENXT = 'http://127.0.0.1:9999';
    process.env.NODE_ENV = 'production';
    expect(() => baseUrlOverride('renxt')).toThrow(ConnectionProblem);
    expect(() => baseUrlOverride('renxt')).toThrow('CONNECTOR_BASE_URL_RENXT is set, and vendor base URLs cannot be redirected in production.');
  });
});
