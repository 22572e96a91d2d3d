/**
 * Moving a tab's cards by keyboard and by drag, before the new order is handed to the tabs
 * machine: what the hand is holding right now is the view's, the order saved is the machine's.
 *
 * Keyboard: on a card's handle Space or Enter lifts it, the arrow keys move it, Space or Enter
 * drops it there, Escape puts it back. Each step is announced. Drag: native HTML5 drag and drop
 * (no library: the Data Queue's JavaScript budget), the card moving as it is dragged over others.
 */
import { useCallback, useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { moveItem } from '../../domain/dataQueue.ts';

export interface CardMover {
  /** the order to show: the one being moved, else the saved one */
  order: string[];
  lifted: string | null;
  announcement: string;
  keyDown(id: string, e: KeyboardEvent<HTMLButtonElement>): void;
  drag(id: string): { onDragStart(e: DragEvent): void; onDragOver(e: DragEvent): void; onDrop(e: DragEvent): void; onDragEnd(): void };
  handleRef(id: string): (el: HTMLButtonElement | null) => void;
}

export function useCardMover(saved: string[], nameOf: (id: string) => string, drop: (order: string[]) => void): CardMover {
  const [moving, setMoving] = useState<{ id: string; order: string[]; by: 'keys' | 'drag' } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const handles = useRef(new Map<string, HTMLButtonElement>());
  const order = moving?.order ?? saved;
  const savedKey = saved.join();
  // the saved order changed under the hand (restored after a failure, reloaded): let go
  useEffect(() => { setMoving(null); }, [savedKey]);
  // a moved card keeps the focus on its handle as React moves it
  useEffect(() => { if (moving?.by === 'keys') handles.current.get(moving.id)?.focus(); }, [moving]);

  const place = (id: string, list: string[]) => `${nameOf(id)}, position ${list.indexOf(id) + 1} of ${list.length}`;

  const finish = (next: string[], id: string) => {
    setMoving(null);
    const changed = next.some((x, i) => x !== saved[i]);
    setAnnouncement(changed ? `Dropped ${place(id, next)}.` : `Dropped ${nameOf(id)}; the order is unchanged.`);
    if (changed) drop(next);
  };

  const keyDown = (id: string, e: KeyboardEvent<HTMLButtonElement>) => {
    const lift = e.key === ' ' || e.key === 'Enter';
    if (!moving || moving.id !== id) {
      if (!lift) return;
      e.preventDefault();
      setMoving({ id, order: saved, by: 'keys' });
      setAnnouncement(`Lifted ${place(id, saved)}. Use the arrow keys to move it, Space to drop it, Escape to cancel.`);
      return;
    }
    const at = moving.order.indexOf(id);
    const step = e.key === 'ArrowUp' || e.key === 'ArrowLeft' ? -1 : e.key === 'ArrowDown' || e.key === 'ArrowRight' ? 1 : 0;
    if (step) {
      e.preventDefault();
      const next = moveItem(moving.order, at, at + step);
      setMoving({ ...moving, order: next });
      setAnnouncement(`Moved ${place(id, next)}.`);
    } else if (lift) {
      e.preventDefault();
      finish(moving.order, id);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setMoving(null);
      setAnnouncement(`Cancelled; ${place(id, saved)}.`);
    }
  };

  const drag = (id: string) => ({
    onDragStart(e: DragEvent) {
      e.dataTransfer.effectAllowed = 'move';
      e.dataTransfer.setData('text/plain', nameOf(id));
      setMoving({ id, order: saved, by: 'drag' });
    },
    onDragOver(e: DragEvent) {
      if (!moving || moving.by !== 'drag') return;
      e.preventDefault();
      if (moving.id === id) return;
      setMoving({ ...moving, order: moveItem(moving.order, moving.order.indexOf(moving.id), moving.order.indexOf(id)) });
    },
    onDrop(e: DragEvent) {
      if (!moving || moving.by !== 'drag') return;
      e.preventDefault();
      finish(moving.order, moving.id);
    },
    onDragEnd() { setMoving((m) => (m?.by === 'drag' ? null : m)); },
  });

  const handleRef = useCallback((id: string) => (el: HTMLButtonElement | null) => {
    if (el) handles.current.set(id, el);
    else handles.current.delete(id);
  }, []);

  return { order, lifted: moving?.by === 'keys' ? moving.id : null, announcement, keyDown, drag, handleRef };
}
