/**
 * `npm start` builds the app when a source is newer than dist/: in a child process, so the server
 * never holds the bundler's memory, for production (whatever NODE_ENV the caller runs under), and a
 * build that fails stops the start with a message. A small app stands for ours.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureAppBuilt } from '../../server/appBuild.ts';

const roots: string[] = [];
afterAll(() => { for (const r of roots) fs.rmSync(r, { recursive: true, force: true }); });

/** An app whose build notes which process built it and for which NODE_ENV. */
function smallApp(main: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-build-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><html><body><script type="module" src="/src/main.js"></script></body></html>\n');
  fs.writeFileSync(path.join(root, 'src', 'main.js'), main);
  fs.writeFileSync(path.join(root, 'vite.config.mjs'), `
    import fs from 'node:fs';
    export default { plugins: [{ name: 'built-by', buildStart() {
      fs.writeFileSync(${JSON.stringify(path.join(root, 'built-by.json'))}, JSON.stringify({ pid: process.pid, nodeEnv: process.env.NODE_ENV }));
    } }] };
  `);
  return root;
}

describe('building the app on start', () => {
  it('builds in a child process, for production, and not again while dist/ is newer than the sources', async () => {
    const root = smallApp('document.body.append("hello");\n');
    expect(await ensureAppBuilt(root)).toBe(path.join(root, 'dist'));
    expect(fs.existsSync(path.join(root, 'dist', 'index.html'))).toBe(true);
    const builtBy = JSON.parse(fs.readFileSync(path.join(root, 'built-by.json'), 'utf8')) as { pid: number; nodeEnv: string };
    expect(builtBy.pid).not.toBe(process.pid);
    expect(builtBy.nodeEnv).toBe('production');
    fs.rmSync(path.join(root, 'built-by.json'));
    await ensureAppBuilt(root);
    expect(fs.existsSync(path.join(root, 'built-by.json'))).toBe(false);
  }, 120_000);

  it('stops with a message when the build fails', async () => {
    const root = smallApp('import "./missing.js";\n');
    await expect(ensureAppBuilt(root)).rejects.toThrow(/The app could not be built/);
  }, 120_000);
});
