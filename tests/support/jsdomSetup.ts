/** What jsdom lacks and Mantine uses, for every test that renders a screen, and how long a test waits for what it expects. */
import * as React from 'react';
import { configure } from '@testing-library/react';
import { preloadModal } from '../../src/ui/LazyModal.tsx';
import { EXPECTED_WAIT_MS } from './modelPaths.ts';

// React's development build records, for every element it creates, a stack trace and an async task
// (console.createTask) to show where a component was rendered from in DevTools and in its warnings.
// Screens rendered path after path spend about a sixth of their time on that (measured on the
// connection form and route-access files: 20 s of CPU against 17 s without). Nothing a test checks
// depends on it: React falls back to the owner-less form once its per-render budget of 10,000 is
// spent, which this makes from the first element on.
const internals = (React as unknown as Record<string, Record<string, unknown> | undefined>).__CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE;
if (internals && 'recentlyCreatedOwnerStacks' in internals) {
  Object.defineProperty(internals, 'recentlyCreatedOwnerStacks', { get: () => Number.MAX_SAFE_INTEGER, set: () => {}, configurable: true });
}

// Testing Library gives up on what a test waits for (findBy…, waitFor) after 1 s by default: on a
// busy machine a screen can take longer than that to show what it will show. A wait that is met
// returns at once, so only a test that is failing anyway waits longer; the proofs that expect a
// path to fail wait the old second at most (expectingFailure, proofWaitOf in tests/support/modelPaths.ts).
configure({ asyncUtilTimeout: EXPECTED_WAIT_MS });

window.matchMedia ??= ((query: string) => ({
  matches: false, media: query, onchange: null, addListener: () => {}, removeListener: () => {},
  addEventListener: () => {}, removeEventListener: () => {}, dispatchEvent: () => false,
})) as typeof window.matchMedia;
globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
Element.prototype.scrollIntoView ??= () => {};
// Mantine's autosizing textarea waits on the document's fonts, which jsdom lacks
(document as { fonts?: unknown }).fonts ??= { addEventListener() {}, removeEventListener() {} };
// a file starts on an empty page: the model project's files share their worker's page (the vmForks
// pool in vitest.config.ts), and what one left behind (Mantine's portals, a scroll lock) would show in the next
document.body.replaceChildren();
for (const { name } of [...document.body.attributes]) document.body.removeAttribute(name);
// dialogs load Mantine's Modal when one first opens; a screen test has it from the start
await preloadModal();
