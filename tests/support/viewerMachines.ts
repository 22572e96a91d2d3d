/**
 * The statechart viewer's own machines (src/devtools/machines), which the registry leaves out:
 * they are no application workflow, yet they are drawn, modelled and covered like one.
 */
import { machinesOf } from '../../src/devtools/machineList.ts';

export const VIEWER_MACHINES = machinesOf(import.meta.glob('../../src/devtools/machines/*.ts', { eager: true }));
