/**
 * Every machine has a model-based test (issue 7; DESIGN.md section 3).
 *
 * The rule, per machine of the registry (every machine exported from src/machines/*.ts): some
 * test file in tests/model/ imports that machine's export from its module
 * (`import { uploadMachine } from '../../src/machines/upload.ts'`) and builds a test model
 * (`createTestModel(` or `new TestModel(`). A machine reached only through another machine or a
 * support file does not count: its own paths must be walked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/machines/registry.ts';

const MODEL_DIR = path.resolve(import.meta.dirname, '../model');

const modelTests = fs.readdirSync(MODEL_DIR)
  .filter((f) => /\.test\.tsx?$/.test(f))
  .map((f) => ({ file: f, text: fs.readFileSync(path.join(MODEL_DIR, f), 'utf8') }));

const buildsTestModel = (text: string) => /\bcreateTestModel\s*\(|\bnew\s+TestModel\s*\(/.test(text);

/** the names a test file imports from a module of src/machines (by file name, with or without .ts) */
function importedNames(text: string, machineFile: string): string[] {
  const base = machineFile.replace(/\.ts$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(String.raw`import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"](?:\.\.\/)+src\/machines\/${base}(?:\.ts)?['"]`, 'g');
  return [...text.matchAll(re)].flatMap((m) => m[1]!.split(',').map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!.trim()).filter(Boolean));
}

function testsOf(entry: { file: string; exportName: string }): string[] {
  return modelTests
    .filter((t) => buildsTestModel(t.text) && importedNames(t.text, entry.file).includes(entry.exportName))
    .map((t) => t.file);
}

describe('model-based test coverage', () => {
  it('finds the machines and the model tests', () => {
    expect(registry.length).toBeGreaterThan(0);
    expect(modelTests.length).toBeGreaterThan(0);
  });

  it('the rule recognises a model test, and only one that imports the machine and builds a model', () => {
    const entry = { file: 'upload.ts', exportName: 'uploadMachine' };
    const withModel = `import { outcomeOf, uploadMachine } from '../../src/machines/upload.ts';\nconst model = createTestModel(uploadMachine);`;
    const withoutModel = `import { uploadMachine } from '../../src/machines/upload.ts';\nit('renders', () => {});`;
    const otherMachine = `import { flagsMachine } from '../../src/machines/flags.ts';\nnew TestModel(flagsMachine);`;
    expect(buildsTestModel(withModel) && importedNames(withModel, entry.file).includes(entry.exportName)).toBe(true);
    expect(buildsTestModel(withoutModel)).toBe(false);
    expect(importedNames(otherMachine, entry.file)).toEqual([]);
  });

  it('every registered machine has a model-based test in tests/model', () => {
    const missing = registry.filter((entry) => testsOf(entry).length === 0).map((e) => `${e.id} (${e.file}, export ${e.exportName})`);
    if (missing.length) console.error(`Machines without a model-based test in tests/model:\n  ${missing.join('\n  ')}`);
    expect(missing, 'machines without a model-based test (a tests/model/*.test.ts[x] that imports the machine and calls createTestModel or new TestModel)').toEqual([]);
  });
});
