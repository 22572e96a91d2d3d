/**
 * What a screen shows while its code arrives: the shape of a page (a title and a few lines), light
 * enough to sit in the first bundle. Its size stays close to a real page's top so nothing jumps
 * when the page replaces it.
 */
import { Skeleton, Stack } from '@mantine/core';

export function PageSkeleton() {
  return (
    <Stack gap="md" role="status" aria-busy="true" aria-label="Loading the page">
      <Skeleton height={36} width="40%" radius="sm" />
      <Skeleton height={14} width="90%" radius="sm" />
      <Skeleton height={14} width="75%" radius="sm" />
      <Skeleton height={120} radius="md" />
    </Stack>
  );
}

/** The page area while the shell decides whether the page may open. */
export function PageAreaSkeleton({ label = 'Loading' }: { label?: string }) {
  return (
    <Stack gap="md" role="status" aria-busy="true" aria-label={label} maw={880}>
      <Skeleton height={34} width="45%" radius="sm" />
      <Skeleton height={14} width="80%" radius="sm" />
      <Skeleton height={14} width="65%" radius="sm" />
      <Skeleton height={160} radius="md" />
    </Stack>
  );
}
