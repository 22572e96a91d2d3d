/** Mantine's notifications component alone, loaded by NotificationsWhenShown.tsx. */
export { Notifications } from '@mantine/notifications';
