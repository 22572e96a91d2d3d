/**
 * Blackbaud SKY API (Raiser's Edge NXT, Financial Edge NXT): the saved refresh token is exchanged
 * at oauth2.sky.blackbaud.com/token (HTTP Basic application id and secret, keeping the refresh
 * token), then one read proves the subscription key and the environment's consent.
 */
import { fenxt, renxt } from '../../../src/domain/connectors/blackbaud.ts';
import type { ObjectInfo, SystemId } from '../../../src/domain/connectors/types.ts';
import { refused, testOnlyConnector, type Connector } from '../connector.ts';
import { oauthClient } from '../oauth/flow.ts';
import { basic, expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

interface SkyToken { access_token?: string; refresh_token?: string; environment_name?: string; legal_entity_name?: string }

function skyConnector(system: SystemId, name: string, probe: string, objects: ObjectInfo[]): Connector {
  return testOnlyConnector(system, async ({ settings }) => {
    // the connection's application, else the server's (OAUTH_CLIENT_ID_<SYSTEM>)
    const client = oauthClient(system, settings);
    if (!client) throw refused(`Enter the application's ID and secret, or ask whoever runs Tributary to set them for ${name}.`);
    if (!settings.refreshToken) throw refused(`Not connected yet: use Connect to ${name}.`);
    const tokenRes = await vendorFetch(system, name, 'https://oauth2.sky.blackbaud.com/token', {
      method: 'POST',
      headers: { ...FORM, authorization: basic(client.clientId, client.clientSecret) },
      body: form({ grant_type: 'refresh_token', refresh_token: settings.refreshToken, preserve_refresh_token: 'true' }),
    });
    const token = await expectJson<SkyToken>(name, tokenRes, 'the application credentials or refresh token');
    const accessToken = requireField(token.access_token, name, 'an access token');
    const apiRes = await vendorFetch(system, name, `https://api.sky.blackbaud.com${probe}`, {
      headers: { authorization: `Bearer ${accessToken}`, 'bb-api-subscription-key': settings.subscriptionKey! },
    });
    await expectJson(name, apiRes, 'the subscription key');
    const where = token.environment_name ?? token.legal_entity_name;
    return {
      detail: `Signed in to ${name}${where ? ` (${where})` : ''}.`,
      ...(token.refresh_token && token.refresh_token !== settings.refreshToken ? { updatedSecrets: { refreshToken: token.refresh_token } } : {}),
    };
  }, objects);
}

export const renxtConnector = skyConnector('renxt', "Raiser's Edge NXT", '/constituent/v1/constituents?limit=1', renxt.objects);
export const fenxtConnector = skyConnector('fenxt', 'Financial Edge NXT', '/generalledger/v1/accounts?limit=1', fenxt.objects);
