/** Builds the browser app into dist/ when a source is newer than the last build. */
import fs from 'node:fs';
import path from 'node:path';

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...fs.readdirSync(p).map((f) => newestMtime(path.join(p, f))));
}

export async function ensureAppBuilt(root = process.cwd()): Promise<string> {
  const dist = path.join(root, 'dist');
  const sources = Math.max(...['src', 'index.html', 'vite.config.ts', 'package-lock.json'].map((f) => newestMtime(path.join(root, f))));
  if (newestMtime(path.join(dist, 'index.html')) < sources) {
    console.log('Building the app…');
    const { build } = await import('vite');
    // NODE_ENV wins over the mode in Vite: under a test runner it is 'test', which would build React for development
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({ root, mode: 'production', logLevel: 'warn' });
    } finally {
      process.env.NODE_ENV = nodeEnv;
    }
  }
  return dist;
}
