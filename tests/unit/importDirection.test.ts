import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImports } from '../../scripts/lint-imports.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'imports-'));
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
};
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('import direction lint', () => {
  it('accepts the allowed direction and flags each forbidden edge', async () => {
    write('src/domain/a.ts', "import * as v from 'valibot'; export const a = v;");
    write('src/services/s.ts', "import { a } from '../domain/a.ts'; export const s = a;");
    write('src/machines/m.ts', "import { s } from '../services/s.ts'; export const m = s;");
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
});
