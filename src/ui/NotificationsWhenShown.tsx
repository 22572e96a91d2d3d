/**
 * Mantine's notifications, whose code (with its transitions and portal) loads when the first
 * notification is shown: most visits to the landing page never show one. A notification shown
 * before the code arrives waits in Mantine's store and appears with it.
 */
import { lazy, Suspense, useState } from 'react';
import { useNotifications, type NotificationsProps } from '@mantine/notifications';

const Notifications = lazy(() => import('./notificationsView.ts').then((m) => ({ default: m.Notifications })));

export function NotificationsWhenShown(props: NotificationsProps) {
  const { notifications, queue } = useNotifications();
  const [wanted, setWanted] = useState(false);
  // once mounted it stays, so the notifications keep their own transitions
  if (!wanted && notifications.length + queue.length > 0) setWanted(true);
  return wanted ? <Suspense fallback={null}><Notifications {...props} /></Suspense> : null;
}
