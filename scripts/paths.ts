/**
 * `npm run paths` (issue 7): per application machine (src/machines/*.ts), its number of states
 * and transitions and of the shortest and simple paths @xstate/graph generates (bounded as on
 * the Workflows screen), then a final line with the totals. Runs under Node (tsx), where Vite's
 * import.meta.glob does not exist: the module map is built here with import(), and the same
 * `machinesOf` as the registry's decides what a machine is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMachineModuleFile, machinesOf } from '../src/devtools/machineList.ts';
import { DEFAULT_BOUNDS, pathsOf, sizeOf, statechartOf } from '../src/devtools/graph.ts';

const dir = path.resolve(import.meta.dirname, '../src/machines');
const modules: Record<string, unknown> = {};
const failed: string[] = [];
for (const file of fs.readdirSync(dir).filter(isMachineModuleFile).sort()) {
  try {
    modules[`./${file}`] = await import(pathToFileURL(path.join(dir, file)).href);
  } catch (error) {
    failed.push(file);
    console.error(`${file}: cannot be imported under Node: ${(error as Error).message}`);
  }
}

const rows: string[][] = [['machine', 'file', 'states', 'transitions', 'reachable', 'shortest paths', 'simple paths']];
let totals = { machines: 0, states: 0, transitions: 0, shortest: 0, simple: 0 };
const notes: string[] = [];
for (const entry of machinesOf(modules)) {
  const size = sizeOf(statechartOf(entry.machine));
  const paths = pathsOf(entry.machine);
  const simple = paths.simple ? String(paths.simple.length) : `> ${DEFAULT_BOUNDS.maxSimplePaths} (not generated)`;
  rows.push([entry.id, entry.file, String(size.states), String(size.transitions), String(paths.reachableStates), String(paths.shortest.length), simple]);
  if (paths.error) notes.push(`${entry.id}: ${paths.error}`);
  totals = {
    machines: totals.machines + 1,
    states: totals.states + size.states,
    transitions: totals.transitions + size.transitions,
    shortest: totals.shortest + paths.shortest.length,
    simple: totals.simple + (paths.simple?.length ?? 0),
  };
}

const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const [i, row] of rows.entries()) {
  console.log(row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
for (const note of notes) console.log(note);
console.log(`${totals.machines} machines: ${totals.states} states, ${totals.transitions} transitions, `
  + `${totals.shortest} shortest paths, ${totals.simple} simple paths`
  + (failed.length ? `; ${failed.length} module(s) could not be imported: ${failed.join(', ')}` : ''));
if (failed.length) process.exitCode = 1;
