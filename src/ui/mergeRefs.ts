/**
 * Floating UI's useMergeRefs as Mantine's ScrollArea calls it (an array of refs), answered by
 * Mantine's own useMergedRef: vite.config.ts sends ScrollArea's import here, so a table does not
 * bring the whole positioning library with it.
 */
import type { Ref } from 'react';
import { useMergedRef } from '@mantine/hooks';

export function useMergeRefs<T>(refs: readonly (Ref<T> | undefined)[]) {
  return useMergedRef<T>(...refs);
}
