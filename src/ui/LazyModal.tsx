/**
 * Mantine's Modal, loaded the first time a dialog opens: its focus trap, overlay and scroll lock
 * (about 14 KB brotli) stay off screens that may never open one, such as the Data Queue with its
 * JavaScript budget (tests/e2e/webVitals.test.ts). Once loaded it renders at once.
 */
import { lazy, Suspense, useRef, type ComponentType } from 'react';
import type { ModalProps } from '@mantine/core';

let loaded: ComponentType<ModalProps> | null = null;
const load = () => import('./modal.tsx').then((m) => { loaded = m.Modal; return { default: m.Modal }; });
const Lazy = lazy(load);

/** Loads the Modal ahead of the first dialog (screen tests do, so a dialog shows in the same render). */
export async function preloadModal(): Promise<void> {
  await load();
}

export function LazyModal(props: ModalProps) {
  // once opened it stays mounted, so it can play its closing transition. The way it is rendered is
  // chosen then and kept: switching from the lazy one to the loaded one on a later render would
  // mount the dialog anew, losing what its content holds (an upload's outcome, a half-filled form)
  const direct = useRef<boolean | null>(null);
  if (props.opened && direct.current === null) direct.current = loaded !== null;
  if (direct.current === null) return null;
  const Modal = loaded;
  return direct.current && Modal ? <Modal {...props} /> : <Suspense fallback={null}><Lazy {...props} /></Suspense>;
}
