/** Every system's connector, by system id. */
import type { SystemId } from '../../src/domain/connectors/types.ts';
import { altruConnector, bbcrmConnector } from './appFx/connector.ts';
import type { Connector } from './connector.ts';
import { constantContactConnector } from './constantContact/connector.ts';
import { donordriveConnector } from './donordrive/connector.ts';
import { emmaConnector } from './emma/connector.ts';
import { encompassConnector } from './encompass/connector.ts';
import { engagingNetworksConnector } from './engagingNetworks/connector.ts';
import { everyactionConnector } from './everyaction/connector.ts';
import { fileUploadConnector } from './fileSources/fileUpload.ts';
import { flatFileConnector } from './fileSources/flatFile.ts';
import { givecampusConnector } from './givecampus/connector.ts';
import { gofundmeProConnector } from './gofundmePro/connector.ts';
import { httpConnector } from './http/connector.ts';
import { hubspotConnector } from './hubspot/connector.ts';
import { luminateOnlineConnector } from './luminateOnline/connector.ts';
import { mailchimpConnector } from './mailchimp/connector.ts';
import { mobileCommonsConnector } from './mobileCommons/connector.ts';
import { pardotConnector } from './pardot/connector.ts';
import { salesforceConnector } from './salesforce/connector.ts';
import { salesforceMarketingCloudConnector } from './salesforceMarketingCloud/connector.ts';
import { sandboxCrmConnector } from './sandboxCrm/connector.ts';
import { sftpConnector } from './sftp/connector.ts';
import { fenxtConnector } from './skyApi/fenxt.ts';
import { renxtConnector } from './skyApi/renxt.ts';
import { stripeConnector } from './stripe/connector.ts';
import { swoogoConnector } from './swoogo/connector.ts';
import { wealthengineConnector } from './wealthengine/connector.ts';

export const CONNECTORS: Record<SystemId, Connector> = {
  'mailchimp': mailchimpConnector,
  'gofundme-pro': gofundmeProConnector,
  'emma': emmaConnector,
  'encompass': encompassConnector,
  'engaging-networks': engagingNetworksConnector,
  'everyaction': everyactionConnector,
  'renxt': renxtConnector,
  'bbcrm': bbcrmConnector,
  'altru': altruConnector,
  'constant-contact': constantContactConnector,
  'salesforce': salesforceConnector,
  'pardot': pardotConnector,
  'salesforce-marketing-cloud': salesforceMarketingCloudConnector,
  'stripe': stripeConnector,
  'sftp': sftpConnector,
  'swoogo': swoogoConnector,
  'mobile-commons': mobileCommonsConnector,
  'givecampus': givecampusConnector,
  'hubspot': hubspotConnector,
  'luminate-online': luminateOnlineConnector,
  'fenxt': fenxtConnector,
  'donordrive': donordriveConnector,
  'http': httpConnector,
  'file-upload': fileUploadConnector,
  'flat-file': flatFileConnector,
  'wealthengine': wealthengineConnector,
  'sandbox-crm': sandboxCrmConnector,
};

export const connectorOf = (system: SystemId): Connector => CONNECTORS[system];
