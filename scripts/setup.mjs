/**
 * The set-up in front of `npm start`, `npm test`, `npm run dev` and `npm run worker`, so that a
 * fresh clone needs only Node and npm:
 *
 *   node scripts/setup.mjs [--test-programs] COMMAND [ARGS...]
 *
 * 1. runs `npm ci` when node_modules is missing or does not match package-lock.json;
 * 2. with --test-programs, finds Debian's Chromium and ClamAV's clamd, installing them with apt-get
 *    when it can, or stops saying what to install;
 * 3. runs COMMAND with node_modules/.bin first on PATH, so `node` is the project's Node 24 (the npm
 *    package `node`) rather than the system's, passing Ctrl-C and SIGTERM on and exiting with its code.
 *
 * Plain JavaScript with no dependency: it runs on whatever Node is installed, before anything else is.
 * package.json starts it with `exec`, so npm waits for it, and so for a clean stop, rather than for a
 * shell that Ctrl-C ends at once.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin');
const ci = Boolean(process.env.CI) && process.env.CI !== 'false';

// Kept in step with tests/support/browser.ts and tests/support/clamav.ts, which look in the same places.
const TEST_PROGRAMS = [
  {
    name: 'Chromium', apt: 'chromium', why: 'the end-to-end tests drive Debian\'s Chromium',
    paths: [process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'], optOut: 'TRIBUTARY_SKIP_E2E',
    // apt puts it at /usr/bin/chromium, which does not help a CHROMIUM_PATH pointing elsewhere
    installable: !process.env.CHROMIUM_PATH,
  },
  {
    name: 'clamd', apt: 'clamav-daemon', why: 'the virus-scanning tests run a real clamd',
    paths: [process.env.CLAMD_PATH, '/usr/sbin/clamd', '/usr/bin/clamd', '/usr/local/sbin/clamd'].filter(Boolean),
    optOut: 'TRIBUTARY_SKIP_CLAMAV', installable: true,
  },
];

function fail(message) {
  console.error(`\n${message}\n`);
  process.exit(1);
}

function run(command, args, env = process.env) {
  console.log(`> ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} failed${result.error ? `: ${result.error.message}` : ''}.`);
}

/** Why node_modules needs `npm ci`, or null when it holds exactly what package-lock.json lists. */
function dependenciesOutOfDate() {
  const packages = (file) => {
    try { return JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')).packages ?? {}; } catch { return null; }
  };
  const wanted = packages('package-lock.json');
  const installed = packages('node_modules/.package-lock.json'); // npm writes it after every install
  if (!wanted) return 'package-lock.json cannot be read';
  if (!installed) return 'node_modules is missing';
  for (const [name, want] of Object.entries(wanted)) {
    if (name === '') continue;
    const have = installed[name];
    // optional packages for other platforms are never installed
    if (!have && (want.optional || want.devOptional)) continue;
    if (!have || have.version !== want.version || have.resolved !== want.resolved) {
      return `${name.replace(/^.*node_modules\//, '')} ${want.version} is ${have ? `at ${have.version}` : 'not installed'}`;
    }
  }
  const extra = Object.keys(installed).find((name) => !(name in wanted));
  return extra ? `${extra.replace(/^.*node_modules\//, '')} is no longer in package-lock.json` : null;
}

function ensureDependencies() {
  const reason = dependenciesOutOfDate();
  if (!reason) return;
  console.log(`Installing the dependencies (${reason}).`);
  const started = Date.now();
  // npm runs on the system's Node here, so its engine warnings about Node 24 packages are expected noise
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  console.log(`Dependencies installed in ${Math.round((Date.now() - started) / 1000)} s.\n`);
}

function ensureTestPrograms() {
  const missing = [];
  for (const program of TEST_PROGRAMS) {
    if (process.env[program.optOut]) {
      if (ci) fail(`${program.optOut} is set, but under CI every suite must run: unset it and install ${program.apt}.`);
      console.warn(`\n*** ${program.optOut} is set: ${program.name} is not needed, and the tests that use it will not run. ***\n`);
    } else if (!program.paths.some((p) => fs.existsSync(p))) {
      missing.push(program);
    }
  }
  if (!missing.length) return;

  const aptGet = ['/usr/bin/apt-get', '/bin/apt-get'].find((p) => fs.existsSync(p));
  const installing = missing.filter((p) => p.installable);
  if (process.getuid?.() === 0 && aptGet && installing.length) {
    for (const p of installing) console.log(`Installing ${p.apt}: ${p.why}, and ${p.paths.join(' or ')} is missing.`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run(aptGet, ['update', '-qq'], env);
    run(aptGet, ['install', '-y', '-qq', ...installing.map((p) => p.apt)], env);
    const still = missing.filter((p) => !p.paths.some((f) => fs.existsSync(f)));
    if (!still.length) return;
    missing.splice(0, missing.length, ...still);
  }
  fail([
    'npm test cannot run every suite:',
    ...missing.map((p) => `  ${p.name} is not at ${p.paths.join(' or ')}: ${p.why}.`),
    `Install ${missing.length > 1 ? 'them' : 'it'} as root: apt-get update && apt-get install -y ${missing.map((p) => p.apt).join(' ')}`,
    ...(process.env.CHROMIUM_PATH ? ['(CHROMIUM_PATH is set: point it at a Chromium, or unset it to use Debian\'s.)'] : []),
    ci ? 'Under CI no suite may be left out.'
      : `Or, for a local run only, leave those tests out with ${missing.map((p) => `${p.optOut}=1`).join(' ')} (the summary reports it).`,
  ].join('\n'));
}

const args = process.argv.slice(2);
const testPrograms = args[0] === '--test-programs';
const [command, ...commandArgs] = testPrograms ? args.slice(1) : args;
if (!command) fail('usage: node scripts/setup.mjs [--test-programs] COMMAND [ARGS...]');

ensureDependencies();
if (testPrograms) ensureTestPrograms();

const local = path.join(bin, command);
const child = spawn(fs.existsSync(local) ? local : command, commandArgs, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
});
// Ctrl-C in a terminal reaches the child too; a signal sent to npm alone reaches it only through here
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('error', (err) => fail(`Could not run ${command}: ${err.message}`));
child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
