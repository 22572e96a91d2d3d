/**
 * Connect with the vendor (OAuth 2.0 authorization code, src/domain/connectors/oauth.ts). `start`
 * records an attempt bound to the tenant, data source and user and answers the vendor's consent
 * URL, with a signed state and a PKCE challenge; the vendor sends the browser back to
 * PUBLIC_URL/integrations/oauth/callback, which hands its answer to the Connections screen, and
 * the signed-in user's `complete` checks the state (signature, same user, same tenant, not used,
 * not expired), exchanges the code and seals the refresh token with the data source's other
 * secrets. Completing in the browser of the user who started, with their session, means a
 * consent page sent to someone else can never connect their account to the sender's data source.
 */
import { timingSafeEqual } from 'node:crypto';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import {
  OAUTH_CALLBACK_PATH, OAUTH_STATE_TTL_MS, oauthFailureMessage, oauthVendorFor, usesOAuth, type OAuthFailure,
} from '../../src/domain/connectors/oauth.ts';
import type { SystemId } from '../../src/domain/connectors/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { Config } from '../config.ts';
import { ConnectionProblem } from '../connectors/connector.ts';
import { connectionSettings, openSecrets, sealColumns, type DataSourceRow } from '../connectors/dataSources.ts';
import { authorizeUrl, clientVariables, exchangeCode, ExchangeFailed, oauthClient } from '../connectors/oauth/flow.ts';
import type { SecretBox } from '../connectors/secrets.ts';
import type { OAuthStateRow } from '../db/repositories/oauthStates.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { connectorFailure, type Actor } from './connections.ts';
import { recordEvent } from './events.ts';

export interface CompleteBody { state: string; code?: string | undefined; error?: string | undefined }

const STATE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

export function oauthConnectService(deps: { box: SecretBox; config: Pick<Config, 'publicUrl'> }) {
  const { box, config } = deps;
  const redirectUri = `${config.publicUrl}${OAUTH_CALLBACK_PATH}`;

  /** the signature binds the attempt's id to its tenant, data source, user and system */
  const signature = (s: Pick<OAuthStateRow, 'id' | 'tenantId' | 'dataSourceId' | 'userId' | 'system'>) =>
    box.mac('oauth-state', [s.id, s.tenantId, s.dataSourceId, s.userId, s.system].join('|'));
  /** the PKCE verifier: derived, never stored (43 characters of base64url, RFC 7636's shortest) */
  const verifierOf = (id: string) => box.mac('oauth-pkce', id).toString('base64url');

  const notConnected = (code: OAuthFailure, system: SystemId | null, dataSourceId: string | null, reason?: string) =>
    new DomainError('oauth-not-connected', oauthFailureMessage(code, system ? connectorFor(system).name : 'The system', reason),
      dataSourceId ? { dataSourceId } : {}, code);

  async function load(tenant: TenantScope, id: string): Promise<DataSourceRow> {
    const row = await tenant.dataSources.get(id);
    if (!row) throw new DomainError('not-found', 'No such data source.');
    return row;
  }

  function settingsOf(row: DataSourceRow, actor: Actor): Record<string, string> {
    try { return connectionSettings(box, row); } catch (err) { throw connectorFailure(err, row.system, actor.log); }
  }

  return {
    /** The vendor's consent URL for a saved data source; the browser goes there. */
    async start(tenant: TenantScope, actor: Actor, dataSourceId: string): Promise<{ authorizeUrl: string }> {
      const row = await load(tenant, dataSourceId);
      const system = row.system as SystemId;
      const vendor = oauthVendorFor(system);
      const settings = settingsOf(row, actor);
      const name = connectorFor(system).name;
      if (!vendor || !usesOAuth(system, settings)) {
        throw new DomainError('bad-request', `${name} does not connect through its own consent page with these settings.`, {}, 'not-supported');
      }
      const client = oauthClient(system, settings);
      if (!client) {
        const vars = clientVariables(system);
        const why = settings.clientId ? 'Enter the secret that goes with this ID.' : `Enter them here, or ask whoever runs Tributary to set ${vars.id} and ${vars.secret}.`;
        throw new DomainError('bad-request', `${name} needs the application's ID and secret to connect. ${why}`, {
          errors: settings.clientId ? { clientSecret: 'Enter the secret of this application.' } : { clientId: `Enter the application's ID, or set ${vars.id} on the server.` },
        }, 'validation-failed');
      }
      const id = crypto.randomUUID();
      const attempt = await tenant.oauthStates.insert({
        id, dataSourceId: row.id, userId: actor.userId, system, redirectUri, expiresOn: new Date(Date.now() + OAUTH_STATE_TTL_MS),
      });
      const state = `${id}.${signature(attempt).toString('base64url')}`;
      return { authorizeUrl: authorizeUrl(vendor, settings, { clientId: client.clientId, redirectUri, state, codeVerifier: verifierOf(id) }) };
    },

    /** The vendor's answer, brought back by the user who started: tokens saved, or why not, in words. */
    async complete(tenant: TenantScope, actor: Actor, body: CompleteBody): Promise<{ dataSourceId: string; detail: string }> {
      const parsed = STATE.exec(body.state);
      if (!parsed) throw notConnected('state-invalid', null, null);
      // another tenant's attempt is as unknown here as a made-up one
      const attempt = await tenant.oauthStates.get(parsed[1]!);
      if (!attempt) throw notConnected('state-invalid', null, null);
      const given = Buffer.from(parsed[2]!, 'base64url');
      const expected = signature(attempt);
      // checked before the attempt is used up, so a forged or misdirected answer cannot spend it
      if (given.length !== expected.length || !timingSafeEqual(given, expected) || attempt.userId !== actor.userId) {
        throw notConnected('state-invalid', null, null);
      }
      const system = attempt.system as SystemId;
      if (!(await tenant.oauthStates.take(attempt.id))) throw notConnected('state-used', system, attempt.dataSourceId);
      if (attempt.expiresOn.getTime() <= Date.now()) throw notConnected('state-expired', system, attempt.dataSourceId);
      const row = await load(tenant, attempt.dataSourceId);
      if (body.error !== undefined) {
        if (body.error === 'access_denied') throw notConnected('access-denied', system, row.id);
        const code = /^[a-z_]{1,64}$/.test(body.error) ? body.error : 'an error';
        throw notConnected('vendor-error', system, row.id, `it answered ${code}`);
      }
      if (!body.code) throw notConnected('vendor-error', system, row.id, 'it answered without an authorization code');

      const vendor = oauthVendorFor(system)!;
      const settings = settingsOf(row, actor);
      const client = oauthClient(system, settings);
      if (!client) throw notConnected('exchange-failed', system, row.id, "the application's ID and secret are no longer set");
      let granted;
      try {
        granted = await exchangeCode(vendor, settings, client, { code: body.code, redirectUri: attempt.redirectUri, codeVerifier: verifierOf(attempt.id) });
      } catch (err) {
        if (err instanceof ExchangeFailed) throw notConnected('exchange-failed', system, row.id, err.message);
        if (err instanceof ConnectionProblem) throw notConnected('exchange-failed', system, row.id, err.message.replace(/\.$/, ''));
        throw err;
      }
      await tenant.dataSources.update(row.id, {
        ...sealColumns(box, row.tenantId, row.id, { ...openSecrets(box, row), [vendor.grantField]: granted.grant }),
        // another account may list other objects
        objects: null, objectsRefreshedOn: null,
        modifiedBy: actor.userId, modifiedOn: new Date(),
      });
      const name = connectorFor(system).name;
      await recordEvent(tenant, {
        actor: { userId: actor.userId, name: actor.name }, type: 'datasource.connected',
        description: `Connected the data source ${row.displayName} to ${name}`,
        details: { dataSourceId: row.id, system }, correlationId: actor.correlationId,
      });
      return { dataSourceId: row.id, detail: `Connected to ${name}${granted.where ? ` (${granted.where})` : ''}.` };
    },
  };
}

export type OAuthConnectService = ReturnType<typeof oauthConnectService>;
