/**
 * The app's one door to live inspection (src/devtools/inspection.ts). main.tsx passes
 * `appInspector()` as the `inspect` option of the app's actors. Where live inspection is built in
 * (non-production builds, and production builds made with `VITE_INSPECT=1`) the devtools module
 * is imported dynamically and every inspection event is handed to it; it reports them only while
 * the setting is on. Elsewhere the condition is constant false, the bundler drops the import, and
 * neither the devtools module nor Stately's inspect package reaches the bundle.
 */
import type { InspectionEvent } from 'xstate';

type Observer = (event: InspectionEvent) => void;

/** events kept while the devtools module loads (as many as it keeps for a late receiver) */
const KEPT_WHILE_LOADING = 500;

/** The `inspect` option for the app's actors: an observer where inspection is built in, undefined elsewhere. */
export function appInspector(): Observer | undefined {
  // constant false in a production build without VITE_INSPECT=1: the bundler drops the import
  if (!import.meta.env.PROD || import.meta.env.VITE_INSPECT === '1') {
    let loaded = false;
    let target: Observer | undefined;
    const waiting: InspectionEvent[] = [];
    void import('../devtools/inspection.ts')
      .then((devtools) => { target = devtools.appInspector(); })
      .catch(() => { /* the devtools chunk did not load: the app runs on, uninspected */ })
      .finally(() => {
        loaded = true;
        for (const event of waiting.splice(0)) target?.(event);
      });
    return (event) => {
      if (loaded) target?.(event);
      else if (waiting.push(event) > KEPT_WHILE_LOADING) waiting.shift();
    };
  }
  return undefined;
}
