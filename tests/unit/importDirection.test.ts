import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImports } from '../../scripts/lint-imports.ts';

const roots: string[] = [];
afterAll(() => { for (const r of roots) fs.rmSync(r, { recursive: true, force: true }); });

/** a scratch repository: `write` puts a source file in it */
function scratch() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'imports-'));
  roots.push(root);
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  return { root, write };
}

describe('import direction lint', () => {
  it('accepts the allowed direction and flags each forbidden edge', async () => {
    const { root, write } = scratch();
    write('src/domain/a.ts', "import * as v from 'valibot'; export const a = v;");
    write('src/services/s.ts', "import { a } from '../domain/a.ts'; export const s = a;");
    // the machine calls the service (handing the client itself out is a rule of its own, below)
    write('src/machines/m.ts', "import { s } from '../services/s.ts'; export const m = () => s;");
    write('src/views/v.tsx', "import { m } from '../machines/m.ts'; export const V = () => <div>{String(m)}</div>;");
    write('server/x.ts', "import { a } from '../src/domain/a.ts'; export const x = a;");
    expect(await checkImports(root)).toEqual([]);

    write('src/domain/bad.ts', "import fs from 'node:fs'; import { s } from '../services/s.ts'; export const b = [fs, s];");
    write('src/views/bad.tsx', "import { s } from '../services/s.ts'; export const B = () => <i>{String(s)}</i>;");
    write('src/machines/bad.ts', "import { useState } from 'react'; export const u = useState;");
    write('server/bad.ts', "import { m } from '../src/machines/m.ts'; export const y = m;");
    const problems = (await checkImports(root)).join('\n');
    expect(problems).toContain('src/domain/bad.ts -> node:fs');
    expect(problems).toContain('src/domain/bad.ts -> src/services/s.ts: [domain-is-pure]');
    expect(problems).toContain('[views-go-through-machines]');
    expect(problems).toContain('[machines-below-views]');
    expect(problems).toContain('[server-shares-only-domain]');
  });

  it('sees type-only imports, which esbuild drops before it resolves them', async () => {
    const { root, write } = scratch();
    write('src/services/s.ts', "export interface S { id: string } export const s = 1;");
    write('src/machines/m.ts', "import type { S } from '../services/s.ts'; export type { S } from '../services/s.ts'; export const m = 1;");
    write('src/views/ok.tsx', "import type { S } from '../machines/m.ts'; export const Ok = (p: S) => <i>{p.id}</i>;");
    expect(await checkImports(root)).toEqual([]);

    write('src/views/TypeOnly.tsx', "import type { S } from '../services/s.ts'; export const B = (p: S) => <i>{p.id}</i>;");
    write('src/views/InlineTypes.tsx', "import { type S } from '../services/s.ts'; export const C = (p: S) => <i>{p.id}</i>;");
    write('src/views/ReExport.ts', "export type { S } from '../services/s.ts';");
    const problems = await checkImports(root);
    expect(problems.map((p) => p.split(': [')[0]).sort()).toEqual([
      'src/views/InlineTypes.tsx -> src/services/s.ts (type-only import)',
      'src/views/ReExport.ts -> src/services/s.ts (type-only import)',
      'src/views/TypeOnly.tsx -> src/services/s.ts (type-only import)',
    ]);
    expect(problems.every((p) => p.includes('[views-go-through-machines]'))).toBe(true);
  });

  it('keeps a machine\'s service clients to its own actors: no re-export, no export of an object holding one', async () => {
    const { root, write } = scratch();
    write('src/services/formulas.ts', "export interface FormulaView { id: string } export const formulas = { get: async (id: string) => ({ id }) };");
    write('src/services/integrations.ts', "export const integrations = { list: async () => [] };");
    // what a machine may do with its clients: call them in its actors, build its own functions over them, export their types
    write('src/machines/ok.ts', [
      "import { formulas, type FormulaView } from '../services/formulas.ts';",
      "import { integrations } from '../services/integrations.ts';",
      "export type { FormulaView } from '../services/formulas.ts';",
      "export interface Calls { formulas: typeof formulas }",
      "const stepIO = (calls: Calls) => ({ load: (id: string) => calls.formulas.get(id) });",
      "export const STEP_IO = stepIO({ formulas });",
      "export const load = (id: string): Promise<FormulaView> => formulas.get(id);",
      "export const actors = { loadFormula: (id: string) => formulas.get(id), list: () => integrations.list() };",
      "// export const REAL = { formulas, integrations };",
    ].join('\n'));
    expect(await checkImports(root)).toEqual([]);

    // the pass-through the wizard's steps once reached their services by
    write('src/machines/wizardServices.ts', [
      "/** The I/O the wizard's step screens use */",
      "import { formulas } from '../services/formulas.ts';",
      "import { integrations } from '../services/integrations.ts';",
      "export interface WizardServices { formulas: Pick<typeof formulas, 'get'>; integrations: typeof integrations }",
      "export const REAL_WIZARD_SERVICES: WizardServices = { formulas, integrations };",
    ].join('\n'));
    write('src/machines/reExport.ts', "export { formulas, type FormulaView } from '../services/formulas.ts';");
    write('src/machines/star.ts', "export * from '../services/integrations.ts';");
    write('src/machines/named.ts', "import { formulas as f } from '../services/formulas.ts';\nconst calls = { client: f };\nexport { calls };");
    write('src/machines/member.ts', "import * as svc from '../services/formulas.ts';\nexport const get = svc.formulas.get;");
    write('src/machines/byDefault.ts', "import { integrations } from '../services/integrations.ts';\nexport default Object.freeze({ ...integrations });");
    write('src/machines/listed.ts', "import { integrations } from '../services/integrations.ts';\nexport const all = [integrations] as const;");
    const problems = await checkImports(root);
    expect(problems.every((p) => p.includes('[machines-hand-out-no-services]'))).toBe(true);
    expect(problems.map((p) => p.split(': [')[0]).sort()).toEqual([
      'src/machines/byDefault.ts -> src/services/integrations.ts (export default)',
      'src/machines/listed.ts -> src/services/integrations.ts (export const all)',
      'src/machines/member.ts -> src/services/formulas.ts (export const get)',
      'src/machines/named.ts -> src/services/formulas.ts (export { calls })',
      'src/machines/reExport.ts -> src/services/formulas.ts (re-export { formulas, type FormulaView })',
      'src/machines/star.ts -> src/services/integrations.ts (re-export *)',
      'src/machines/wizardServices.ts -> src/services/formulas.ts (export const REAL_WIZARD_SERVICES)',
    ]);
  });

  it('lets src/ui import only src/domain and libraries that neither fetch nor run machines', async () => {
    const { root, write } = scratch();
    write('src/domain/fields.ts', "import * as v from 'valibot'; export const fields = v;");
    write('src/ui/Badge.tsx', "import { Text } from '@mantine/core'; export const Badge = () => <Text>on</Text>;");
    write('src/ui/Fields.tsx', "import { Badge } from './Badge.tsx'; import { fields } from '../domain/fields.ts'; export const Fields = () => <Badge>{String(fields)}</Badge>;");
    write('src/views/Page.tsx', "import { Fields } from '../ui/Fields.tsx'; export const Page = () => <Fields />;");
    expect(await checkImports(root)).toEqual([]);

    write('src/machines/m.ts', "export const m = 1;");
    write('src/services/s.ts', "export const s = 1;");
    write('src/devtools/graph.ts', "export const graph = 1;");
    write('src/ui/bad/FromViews.tsx', "import { Page } from '../../views/Page.tsx'; export const B = Page;");
    write('src/ui/bad/FromMachines.tsx', "import { m } from '../../machines/m.ts'; export const B = m;");
    write('src/ui/bad/FromServices.tsx', "import { s } from '../../services/s.ts'; export const B = s;");
    write('src/ui/bad/FromDevtools.tsx', "import { graph } from '../../devtools/graph.ts'; export const B = graph;");
    write('src/ui/bad/RunsMachine.tsx', "import { useActorRef } from '@xstate/react'; import { createActor } from 'xstate'; export const B = [useActorRef, createActor];");
    write('src/ui/bad/Fetches.tsx', "import ky from 'ky'; export const B = ky;");
    write('src/ui/bad/UsesNode.tsx', "import fs from 'node:fs'; export const B = fs;");
    const problems = (await checkImports(root)).filter((p) => p.includes('[ui-is-presentational]'));
    const from = (file: string) => problems.filter((p) => p.startsWith(`src/ui/bad/${file}.tsx -> `)).map((p) => p.split(': [')[0]);
    expect(from('FromViews')).toEqual(['src/ui/bad/FromViews.tsx -> src/views/Page.tsx']);
    expect(from('FromMachines')).toEqual(['src/ui/bad/FromMachines.tsx -> src/machines/m.ts']);
    expect(from('FromServices')).toEqual(['src/ui/bad/FromServices.tsx -> src/services/s.ts']);
    expect(from('FromDevtools')).toEqual(['src/ui/bad/FromDevtools.tsx -> src/devtools/graph.ts']);
    expect(from('RunsMachine')).toEqual(['src/ui/bad/RunsMachine.tsx -> node_modules/@xstate/react/', 'src/ui/bad/RunsMachine.tsx -> node_modules/xstate/']);
    expect(from('Fetches')).toEqual(['src/ui/bad/Fetches.tsx -> node_modules/ky/']);
    expect(from('UsesNode')).toEqual(['src/ui/bad/UsesNode.tsx -> node:fs']);
    expect(problems).toHaveLength(8);
  });

  it('keeps the app out of src/devtools but for the lazy routes and the live-inspection import', async () => {
    const { root, write } = scratch();
    write('src/devtools/inspection.ts', "export const inspect = () => undefined;");
    write('src/devtools/graph.ts', "export const graph = 1;");
    write('src/devtools/views/Viewer.tsx', "import { graph } from '../graph.ts'; export const Viewer = () => <svg>{graph}</svg>;");
    write('src/devtools/machines/viewer.ts', "import { graph } from '../graph.ts'; export const viewer = graph;");
    write('src/views/shell/App.tsx', "export const load = () => import('../../devtools/views/Viewer.tsx');");
    write('src/services/inspection.ts', "export const load = () => import('../devtools/inspection.ts');");
    expect(await checkImports(root)).toEqual([]);

    // a static import from the shell, a dynamic one from anywhere else, and the wrong devtools module
    write('src/views/shell/Static.tsx', "import { Viewer } from '../../devtools/views/Viewer.tsx'; export const S = Viewer;");
    write('src/machines/m.ts', "export const load = () => import('../devtools/graph.ts');");
    write('src/services/other.ts', "import { inspect } from '../devtools/inspection.ts'; export const o = inspect;");
    write('src/main.tsx', "export const load = () => import('./devtools/graph.ts');");
    write('src/devtools/machines/bad.ts', "import { Viewer } from '../views/Viewer.tsx'; export const b = Viewer;");
    const problems = await checkImports(root);
    const flagged = (from: string) => problems.filter((p) => p.startsWith(`${from} -> `));
    expect(flagged('src/views/shell/Static.tsx').join('\n')).toContain('src/devtools/views/Viewer.tsx: [app-not-devtools]');
    expect(flagged('src/machines/m.ts').join('\n')).toContain('src/devtools/graph.ts (dynamic import): [app-not-devtools]');
    expect(flagged('src/services/other.ts').join('\n')).toContain('src/devtools/inspection.ts: [app-not-devtools]');
    expect(flagged('src/main.tsx').join('\n')).toContain('src/devtools/graph.ts (dynamic import): [app-not-devtools]');
    expect(flagged('src/devtools/machines/bad.ts').join('\n')).toContain('[machines-below-views]');
    // the two allowed edges stay allowed
    expect(flagged('src/views/shell/App.tsx')).toEqual([]);
    expect(flagged('src/services/inspection.ts')).toEqual([]);
  });

  it('keeps the server\'s layers: routers call services, services queue through what they are given, identity below services, db below connectors', async () => {
    const { root, write } = scratch();
    write('server/db/database.ts', 'export const db = 1;');
    write('server/db/tenancy.ts', "import { db } from './database.ts'; export const forTenant = () => db;");
    write('server/db/accounts.ts', "import { db } from './database.ts'; export const accounts = db;");
    write('server/connectors/connector.ts', 'export const connector = 1;');
    write('server/jobs/formulaRun.ts', 'export const formulaRun = 1;');
    write('server/services/events.ts', "import { forTenant } from '../db/tenancy.ts'; export const recordEvent = forTenant;");
    write('server/services/formulas.ts', "import { accounts } from '../db/accounts.ts'; import { connector } from '../connectors/connector.ts'; export const formulas = [accounts, connector];");
    write('server/http/auth.ts', "import { accounts } from '../db/accounts.ts'; import { forTenant } from '../db/tenancy.ts'; export const auth = [accounts, forTenant];");
    write('server/http/formulas.ts', "import { formulas } from '../services/formulas.ts'; import { forTenant } from '../db/tenancy.ts'; import { auth } from './auth.ts'; export const router = [formulas, forTenant, auth];");
    write('server/identity/provider.ts', "import { accounts } from '../db/accounts.ts'; export const identity = accounts;");
    write('server/container.ts', "import { formulas } from './services/formulas.ts'; import { formulaRun } from './jobs/formulaRun.ts'; export const services = [formulas, formulaRun];");
    expect(await checkImports(root)).toEqual([]);

    write('server/http/bad.ts', "import { db } from '../db/database.ts'; import { accounts } from '../db/accounts.ts'; export const b = [db, accounts];");
    write('server/services/bad.ts', "import { formulaRun } from '../jobs/formulaRun.ts'; export const b = formulaRun;");
    write('server/identity/bad.ts', "import { recordEvent } from '../services/events.ts'; export const b = recordEvent;");
    write('server/db/bad.ts', "import { connector } from '../connectors/connector.ts'; export const b = connector;");
    // the edges the Sandbox CRM once had, before its store moved beside its connector: none is let through
    write('server/connectors/sandboxCrm/store/repository.ts', "import { connector } from '../../connector.ts'; export const sandboxCrmRepository = connector;");
    write('server/connectors/sandboxCrm/seed.ts', "export const seedSandboxCrm = 1;");
    write('server/db/repositories/sandboxCrm.ts', "import { connector } from '../../connectors/connector.ts'; export const crm = connector;");
    write('server/db/tenancy.ts', "import { db } from './database.ts'; import { sandboxCrmRepository } from '../connectors/sandboxCrm/store/repository.ts'; export const forTenant = () => [db, sandboxCrmRepository];");
    write('server/db/seed.ts', "import { seedSandboxCrm } from '../connectors/sandboxCrm/seed.ts'; export const seedDemo = seedSandboxCrm;");
    const problems = await checkImports(root);
    const flagged = (from: string) => problems.filter((p) => p.startsWith(`${from} -> `)).map((p) => p.replace(/: \[([\w-]+)\].*$/, ' [$1]'));
    expect(flagged('server/http/bad.ts')).toEqual([
      'server/http/bad.ts -> server/db/database.ts [http-calls-services]',
      'server/http/bad.ts -> server/db/accounts.ts [http-calls-services]',
    ]);
    expect(flagged('server/services/bad.ts')).toEqual(['server/services/bad.ts -> server/jobs/formulaRun.ts [services-not-jobs]']);
    expect(flagged('server/identity/bad.ts')).toEqual(['server/identity/bad.ts -> server/services/events.ts [identity-not-services]']);
    expect(flagged('server/db/bad.ts')).toEqual(['server/db/bad.ts -> server/connectors/connector.ts [db-not-connectors]']);
    expect(flagged('server/db/repositories/sandboxCrm.ts')).toEqual(['server/db/repositories/sandboxCrm.ts -> server/connectors/connector.ts [db-not-connectors]']);
    expect(flagged('server/db/tenancy.ts')).toEqual(['server/db/tenancy.ts -> server/connectors/sandboxCrm/store/repository.ts [db-not-connectors]']);
    expect(flagged('server/db/seed.ts')).toEqual(['server/db/seed.ts -> server/connectors/sandboxCrm/seed.ts [db-not-connectors]']);
    expect(problems).toHaveLength(8);
  });
});
