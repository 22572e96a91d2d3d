/**
 * Every machine has a model-based test (issue 7; DESIGN.md section 3).
 *
 * The rule, per machine: every application machine of the registry (exported from
 * src/machines/*.ts) and each of the statechart viewer's own (src/devtools/machines/*.ts). Some
 * test file in tests/model/ imports that machine's export from its module
 * (`import { uploadMachine } from '../../src/machines/upload.ts'`) and builds a test model from
 * that export itself: `new TestModel(uploadMachine`, `createTestModel(uploadMachine` or the shared
 * helper's `testModel(uploadMachine` (tests/support/modelPaths.ts), type arguments and
 * `.provide(...)` chains on the export allowed. A file that merely imports the export and builds a
 * model of something else does not count, nor does a model built from a parameter: the machine's
 * own paths must be walked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/devtools/registry.ts';
import { VIEWER_MACHINES } from '../support/viewerMachines.ts';

const MODEL_DIR = path.resolve(import.meta.dirname, '../model');

const modelTests = fs.readdirSync(MODEL_DIR)
  .filter((f) => /\.test\.tsx?$/.test(f))
  .map((f) => ({ file: f, text: fs.readFileSync(path.join(MODEL_DIR, f), 'utf8') }));

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The local names under which a test file imports `exportName` from the module at `modulePath`
 * (relative to src, with or without .ts: `machines/upload.ts`).
 */
function localNames(text: string, modulePath: string, exportName: string): string[] {
  const module = escape(modulePath.replace(/\.ts$/, ''));
  const re = new RegExp(String.raw`import\s+\{([^}]*)\}\s+from\s+['"](?:\.\.\/)+src\/${module}(?:\.ts)?['"]`, 'g');
  return [...text.matchAll(re)].flatMap((m) => m[1]!.split(',').map((spec) => spec.trim().split(/\s+as\s+/)))
    .filter(([name]) => name === exportName)
    .map(([name, local]) => (local ?? name)!.trim());
}

/** Whether the text builds a test model from this name itself (possibly with type arguments, possibly `.provide(...)`d). */
function buildsModelFrom(text: string, name: string): boolean {
  const builder = String.raw`(?:\bnew\s+TestModel|\bcreateTestModel|\btestModel)\s*(?:<[^()]*>)?\s*\(\s*`;
  return new RegExp(`${builder}${escape(name)}\\b`).test(text);
}

/** Whether a test file builds a model from the export `exportName` of the module at `modulePath`. */
function modelsMachine(text: string, modulePath: string, exportName: string): boolean {
  return localNames(text, modulePath, exportName).some((local) => buildsModelFrom(text, local));
}

const MACHINES = [
  ...registry.map((e) => ({ ...e, module: `machines/${e.file}` })),
  ...VIEWER_MACHINES.map((e) => ({ ...e, module: `devtools/machines/${e.file}` })),
];

function testsOf(entry: { module: string; exportName: string }): string[] {
  return modelTests.filter((t) => modelsMachine(t.text, entry.module, entry.exportName)).map((t) => t.file);
}

describe('model-based test coverage', () => {
  it('finds the machines and the model tests', () => {
    expect(registry.length).toBeGreaterThan(0);
    expect(VIEWER_MACHINES.map((m) => m.id).sort()).toEqual(['inspectorReceiver', 'workflows']);
    expect(modelTests.length).toBeGreaterThan(0);
  });

  it('the rule recognises a model built from the machine\'s export, and nothing else', () => {
    const m = 'machines/upload.ts';
    const imports = `import { outcomeOf, uploadMachine } from '../../src/machines/upload.ts';\n`;
    expect(modelsMachine(`${imports}const model = createTestModel(uploadMachine);`, m, 'uploadMachine')).toBe(true);
    expect(modelsMachine(`${imports}const model = new TestModel(uploadMachine, { events });`, m, 'uploadMachine')).toBe(true);
    expect(modelsMachine(`${imports}const model = testModel<typeof uploadMachine, Event>(uploadMachine, { events });`, m, 'uploadMachine')).toBe(true);
    expect(modelsMachine(`${imports}new TestModel(uploadMachine.provide({ actors: {} }));`, m, 'uploadMachine')).toBe(true);
    expect(modelsMachine(`import { uploadMachine as upload } from '../../src/machines/upload';\ntestModel(upload);`, m, 'uploadMachine')).toBe(true);

    // imported, but no model of it: none at all, one of another machine, one built from a parameter
    expect(modelsMachine(`${imports}it('renders', () => {});`, m, 'uploadMachine')).toBe(false);
    expect(modelsMachine(`${imports}import { flagsMachine } from '../../src/machines/flags.ts';\nnew TestModel(flagsMachine);`, m, 'uploadMachine')).toBe(false);
    expect(modelsMachine(`${imports}const modelOf = (machine) => new TestModel(machine);\nmodelOf(uploadMachine);`, m, 'uploadMachine')).toBe(false);
    expect(modelsMachine(`${imports}new TestModel(uploadMachineVariant);`, m, 'uploadMachine')).toBe(false);
    // a model of the export, but the export of another module
    expect(modelsMachine(`import { uploadMachine } from '../../src/machines/other.ts';\nnew TestModel(uploadMachine);`, m, 'uploadMachine')).toBe(false);
    // the viewer's machines live under src/devtools
    expect(modelsMachine(`import { workflowsMachine } from '../../src/devtools/machines/workflows.ts';\ntestModel(workflowsMachine);`, 'devtools/machines/workflows.ts', 'workflowsMachine')).toBe(true);
  });

  it('every machine has a model-based test in tests/model built from the machine itself', () => {
    const missing = MACHINES.filter((entry) => testsOf(entry).length === 0).map((e) => `${e.id} (src/${e.module}, export ${e.exportName})`);
    if (missing.length) console.error(`Machines without a model-based test in tests/model:\n  ${missing.join('\n  ')}`);
    expect(missing, 'machines without a model-based test (a tests/model/*.test.ts[x] that imports the machine and builds new TestModel, createTestModel or testModel from it)').toEqual([]);
  });
});
