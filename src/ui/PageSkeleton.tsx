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
