/**
 * Builds the browser app into dist/ when a source is newer than the last build. The build runs in
 * a child process: Vite's bundler holds well over a gigabyte while it works, and a process keeps
 * most of what its heap once grew to, so a build inside the server left `npm start` at ~1.5 GB
 * resident for as long as it ran. The child gives it all back when it exits.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...fs.readdirSync(p).map((f) => newestMtime(path.join(p, f))));
}

/** Vite's own command line, as `npm run build` runs it. */
const viteBin = () => path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');

function buildInChild(root: string): Promise<void> {
  // NODE_ENV wins over the mode in Vite: under a test runner it is 'test', which would build React for development
  const child = spawn(process.execPath, [viteBin(), 'build', '--mode', 'production', '--logLevel', 'warn'], {
    cwd: root, env: { ...process.env, NODE_ENV: 'production' }, stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve()
      : reject(new Error(`The app could not be built (vite build ended with ${signal ?? `code ${code}`}); its output is above.`))));
  });
}

export async function ensureAppBuilt(root = process.cwd()): Promise<string> {
  const dist = path.join(root, 'dist');
  const sources = Math.max(...['src', 'index.html', 'vite.config.ts', 'package-lock.json'].map((f) => newestMtime(path.join(root, f))));
  if (newestMtime(path.join(dist, 'index.html')) < sources) {
    console.log('Building the app…');
    await buildInChild(root);
  }
  return dist;
}
