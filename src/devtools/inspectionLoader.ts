/**
 * The only module that names Stately's inspect package (@statelyai/inspect).
 * src/devtools/inspection.ts imports it dynamically, and only in builds where live inspection is
 * built in (not in a production build unless VITE_INSPECT=1), so neither this module nor the
 * package reaches the production bundle otherwise.
 */
import { createBrowserInspector } from '@statelyai/inspect';
import type { InspectionEvent } from 'xstate';

export interface Sink { inspect: { next?: (event: InspectionEvent) => void }; stop?: () => void }

/** An inspector that opens no window: each event, made JSON by the inspector, goes to `send`. */
export function createSendingInspector(send: (event: Record<string, unknown>) => void): Sink {
  return createBrowserInspector({ autoStart: false, send: send as never }) as unknown as Sink;
}

/**
 * Opens Stately's inspector at `url` in a popup. Answers the inspector once the popup says it
 * is connected; 'blocked' when no window could be opened; 'unreachable' when it did not answer
 * within `timeoutMs` (the popup is then closed). Once connected, `history` (events already made
 * JSON) is posted to it first.
 */
export async function connectStately(url: string, timeoutMs: number, history: Record<string, unknown>[] = []): Promise<Sink | 'blocked' | 'unreachable'> {
  const connected = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => { window.removeEventListener('message', onMessage); resolve(false); }, timeoutMs);
    function onMessage(message: MessageEvent) {
      if ((message.data as { type?: string } | null)?.type !== '@statelyai.connected') return;
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
      resolve(true);
    }
    window.addEventListener('message', onMessage);
  });
  const inspector = createBrowserInspector({ url });
  const popup = (inspector.adapter as unknown as { targetWindow?: Window | null }).targetWindow;
  if (!popup) {
    inspector.stop();
    return 'blocked';
  }
  if (!(await connected)) {
    inspector.stop();
    popup.close();
    return 'unreachable';
  }
  for (const event of history) popup.postMessage(event, '*');
  return inspector as unknown as Sink;
}
