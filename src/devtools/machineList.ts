/**
 * What counts as a machine, in one place (issue 7): the registry (through Vite's
 * import.meta.glob) and `npm run paths` (through Node's import()) both hand their module map of
 * src/machines to `machinesOf`.
 */
import { StateMachine, type AnyStateMachine } from 'xstate';

export interface MachineEntry {
  /** the machine's id (`auth`, `upload`, ...) */
  id: string;
  /** the module's file name in src/machines (`auth.ts`) */
  file: string;
  /** the export the machine is under (`authMachine`) */
  exportName: string;
  machine: AnyStateMachine;
}

/** An xstate machine: a StateMachine, or (another copy of xstate) an object with config, root and transition. */
export function isMachine(value: unknown): value is AnyStateMachine {
  if (value instanceof StateMachine) return true;
  const v = value as { config?: unknown; root?: unknown; transition?: unknown } | null;
  return !!v && typeof v === 'object' && typeof v.config === 'object' && typeof v.root === 'object' && typeof v.transition === 'function';
}

/** Module files of src/machines that may hold machines. */
export function isMachineModuleFile(file: string): boolean {
  const name = file.replace(/^.*\//, '');
  return /\.ts$/.test(name) && !name.endsWith('.d.ts');
}

/**
 * Every machine exported by the given modules (keys are paths such as `./auth.ts`), each once,
 * sorted by id. Modules that export no machine (helpers) give nothing.
 */
export function machinesOf(modules: Record<string, unknown>): MachineEntry[] {
  const seen = new Set<AnyStateMachine>();
  const entries: MachineEntry[] = [];
  for (const [path, mod] of Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))) {
    if (!isMachineModuleFile(path) || !mod || typeof mod !== 'object') continue;
    for (const [exportName, value] of Object.entries(mod as Record<string, unknown>)) {
      if (!isMachine(value) || seen.has(value)) continue;
      seen.add(value);
      entries.push({ id: value.id, file: path.replace(/^.*\//, ''), exportName, machine: value });
    }
  }
  return entries.sort((a, b) => a.id.localeCompare(b.id) || a.file.localeCompare(b.file));
}
