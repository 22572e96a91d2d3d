/** A record's or candidate's match reasons, as badges. */
import { Badge, Group, Text } from '@mantine/core';

export function Reasons({ reasons }: { reasons: string[] }) {
  if (!reasons.length) return <Text span size="sm" c="dimmed">None</Text>;
  return <Group gap={4}>{reasons.map((x) => <Badge key={x} size="sm" variant="outline" tt="none">{x}</Badge>)}</Group>;
}
