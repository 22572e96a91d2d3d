/** A screen whose capability arrives in a later release: its title, and an honest empty state. */
import { Card, Stack, Text, Title } from '@mantine/core';

export function ScreenPlaceholder({ title, text }: { title: string; text: string }) {
  return (
    <Stack>
      <Title order={1}>{title}</Title>
      <Card withBorder p="xl"><Text c="dimmed">{text}</Text></Card>
    </Stack>
  );
}
