/**
 * The one list of jobs: `npm start` and `npm run worker` create, schedule and work exactly these
 * (startJobs in boss.ts). A new job is a definition file in this folder plus a line here.
 */
import type { AnyJobDefinition } from './definition.ts';
import { formulaRun } from './formulaRun.ts';
import { formulaScheduler } from './formulaScheduler.ts';
import { identityCleanup } from './identityCleanup.ts';
import { recordExport, recordExportSweep } from './recordExport.ts';
import { recordsSend } from './recordsSend.ts';
import { recordTallySweep } from './recordTallySweep.ts';
import { sandboxImport } from './sandboxImport.ts';

export const JOBS: readonly AnyJobDefinition[] = [identityCleanup, formulaRun, formulaScheduler, recordExport, recordExportSweep, recordsSend, recordTallySweep, sandboxImport];
