/**
 * Every application machine: the machines exported from src/machines/*.ts. A new machine file
 * appears here without wiring: Vite collects the modules, and `machinesOf` (./machineList.ts,
 * also used by `npm run paths` under Node, where import.meta.glob does not exist) keeps their
 * exported machines. The viewer's own machines (src/devtools/machines) are not application
 * workflows and are not listed. Only the Workflows screen and the tests read it.
 */
import { machinesOf, type MachineEntry } from './machineList.ts';

export type { MachineEntry } from './machineList.ts';

export const registry: MachineEntry[] = machinesOf(import.meta.glob('../machines/*.ts', { eager: true }));

export function machineById(id: string): MachineEntry | undefined {
  return registry.find((m) => m.id === id);
}
