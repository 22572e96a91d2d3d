/** What jsdom lacks and Mantine uses, for every test that renders a screen. */
import { preloadModal } from '../../src/ui/LazyModal.tsx';

window.matchMedia ??= ((query: string) => ({
  matches: false, media: query, onchange: null, addListener: () => {}, removeListener: () => {},
  addEventListener: () => {}, removeEventListener: () => {}, dispatchEvent: () => false,
})) as typeof window.matchMedia;
globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
Element.prototype.scrollIntoView ??= () => {};
// Mantine's autosizing textarea waits on the document's fonts, which jsdom lacks
(document as { fonts?: unknown }).fonts ??= { addEventListener() {}, removeEventListener() {} };
// dialogs load Mantine's Modal when one first opens; a screen test has it from the start
await preloadModal();
