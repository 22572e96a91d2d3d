/** Every gateway service's contract, in one list: the OpenAPI document and its docs page are built from it. */
import { accountManagementService } from './accountManagement.ts';
import type { Service } from './contract.ts';
import { dataQueueService } from './dataQueue.ts';
import { eventsReporterService } from './eventsReporter.ts';
import { exportService } from './exportService.ts';
import { flagAdminService, flagSnapshotService } from './flags.ts';
import { flatFileService } from './flatFile.ts';
import { formulasService } from './formulas.ts';
import { integrationsService } from './integrations.ts';
import { recordsService } from './records.ts';

export const SERVICES: Service[] = [accountManagementService, integrationsService, formulasService, recordsService, dataQueueService, flatFileService, exportService, eventsReporterService, flagSnapshotService, flagAdminService];
