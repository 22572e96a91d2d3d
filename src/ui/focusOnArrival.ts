/**
 * Focus after a client-side navigation: a screen reader or keyboard user would otherwise stay on
 * the link they followed, with the new page unannounced. Focus moves to what the page wants read
 * first (an element marked `data-focus-on-arrival`, such as a notice of why the user was sent
 * there), else to the page's h1.
 */
import { useEffect, useRef } from 'react';

export const FOCUS_ON_ARRIVAL = 'data-focus-on-arrival';

/** Screens load lazily and may render their heading a moment after the route settles. */
const WAIT_FOR_PAGE_MS = 3000;

function arrivalTarget(): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[${FOCUS_ON_ARRIVAL}]`)
    ?? document.querySelector<HTMLElement>('main h1')
    ?? document.querySelector<HTMLElement>('h1');
}

/**
 * Moves focus each time `page` changes once `ready`. The page the app opens on keeps the browser's
 * own start, unless it has something marked to be read first.
 */
export function useFocusOnArrival(page: string, ready: boolean): void {
  const arrivals = useRef(0);
  useEffect(() => {
    if (!ready) return;
    const first = arrivals.current++ === 0;
    const deadline = performance.now() + WAIT_FOR_PAGE_MS;
    let frame = 0;
    const attempt = () => {
      const target = first ? document.querySelector<HTMLElement>(`[${FOCUS_ON_ARRIVAL}]`) : arrivalTarget();
      if (target) {
        // a heading is not focusable by itself; -1 keeps it out of the Tab order
        if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
        target.focus({ preventScroll: false });
        return;
      }
      if (!first && performance.now() < deadline) frame = requestAnimationFrame(attempt);
    };
    frame = requestAnimationFrame(attempt);
    return () => cancelAnimationFrame(frame);
  }, [page, ready]);
}
