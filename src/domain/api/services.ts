/** Every gateway service's contract, in one list: the OpenAPI document and its docs page are built from it. */
import { accountManagementService } from './accountManagement.ts';
import type { Service } from './contract.ts';
import { eventsReporterService } from './eventsReporter.ts';
import { flagAdminService, flagSnapshotService } from './flags.ts';
import { flatFileService } from './flatFile.ts';
import { formulasService } from './formulas.ts';
import { integrationsService } from './integrations.ts';

export const SERVICES: Service[] = [accountManagementService, integrationsService, formulasService, flatFileService, eventsReporterService, flagSnapshotService, flagAdminService];
