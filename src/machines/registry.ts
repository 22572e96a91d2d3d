/**
 * Every machine in src/machines (issue 7). A new machine file appears here without wiring:
 * Vite collects the modules, and `machinesOf` (src/machines/machineList.ts, also used by
 * `npm run paths` under Node, where import.meta.glob does not exist) keeps their exported
 * machines. Only the Workflows screen and the tests read it.
 */
import { machinesOf, type MachineEntry } from './machineList.ts';

export type { MachineEntry } from './machineList.ts';

export const registry: MachineEntry[] = machinesOf(import.meta.glob(['./*.ts', '!./registry.ts'], { eager: true }));

export function machineById(id: string): MachineEntry | undefined {
  return registry.find((m) => m.id === id);
}
