/** Screens whose capability arrives in a later release: the title, and an honest empty state. */
import { useParams } from 'react-router';
import { Card, Stack, Text, Title } from '@mantine/core';

export function ScreenPlaceholder({ title, text }: { title: string; text: string }) {
  return (
    <Stack>
      <Title order={1}>{title}</Title>
      <Card withBorder p="xl"><Text c="dimmed">{text}</Text></Card>
    </Stack>
  );
}

const SCREEN_TITLES: Record<string, string> = {
  'ready-records': 'Ready records', 'needs-attention': 'Needs Attention', 'needs-attention/v2': 'Needs Attention',
  'needs-attention/one-to-one': 'One-to-one matches', 'one-to-many': 'One-to-many matches', exception: 'Exceptions',
  'formula-exceptions': 'Formula exceptions', 'new-records': 'New records', 'validation-exceptions': 'Validation exceptions',
  'related-records': 'Related records', 'print-formula-review': 'Formula review',
};

export function FormulaScreen({ screen }: { screen: string }) {
  const { formulaId, customBucket } = useParams();
  return (
    <ScreenPlaceholder
      title={`${SCREEN_TITLES[screen] ?? screen}${customBucket ? `: ${customBucket}` : ''}`}
      text={`No records in this bucket of formula ${formulaId}.`}
    />
  );
}
