/**
 * Gives focus back to what opened a dialog when the dialog goes away. Mantine's dialogs do this
 * when they close themselves; a dialog that is unmounted at once (its workflow ended) cannot.
 */
import { useEffect, useRef } from 'react';

export function useReturnFocus(open: boolean): void {
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (open) {
      opener.current = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
      return;
    }
    const back = opener.current;
    opener.current = null;
    // only when focus was lost with the dialog, not taken elsewhere on purpose
    if (back?.isConnected && (document.activeElement === document.body || document.activeElement === null || document.activeElement === document.documentElement)) back.focus();
  }, [open]);
}
