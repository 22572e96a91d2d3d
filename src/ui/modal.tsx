/** Mantine's Modal on its own, for LazyModal to load. */
export { Modal } from '@mantine/core';
