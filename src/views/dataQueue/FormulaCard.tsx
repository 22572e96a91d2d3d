/**
 * A formula's card in the Data Queue (SPEC.md section 2): its name, source and destination, its
 * records per bucket (each leading to its bucket screen), its live status and commands (shared
 * with All Formulas, src/views/formulas/FormulaLive.tsx, as is 'Upload a file' for a live
 * file-upload formula), and the actions that arrange it: add to a tab, remove from this tab, and a
 * handle to move it by drag or keyboard.
 */
import type { DragEvent, KeyboardEvent, ReactNode } from 'react';
import { Link } from 'react-router';
import { ActionIcon, Anchor, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { IconGripVertical } from '@tabler/icons-react';
import type { Tab } from '../../domain/api/dataQueue.ts';
import { CARD_COUNTS, VALIDATION_COUNT_PREFIX } from '../../domain/dataQueue.ts';
import type { Policies } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import type { JobStatusState } from '../../machines/jobStatus.ts';
import type { FormulaView } from '../../domain/api/formulas.ts';
import { CommandButton, endOf, formulaLive, JobLines, LastRun, StatusBadges, UploadFileAction, type JobActor } from '../formulas/FormulaLive.tsx';
import { MenuButton, MenuItem } from '../../ui/MenuButton.tsx';
import classes from './DataQueue.module.css';

const at = (pattern: string, formulaId: string, extra: Record<string, string> = {}) =>
  Object.entries({ formulaId, ...extra }).reduce((p, [k, val]) => p.replace(`:${k}`, encodeURIComponent(val)), pattern);

/** the bucket screen each count leads to */
const COUNT_ROUTES: Record<(typeof CARD_COUNTS)[number]['view'], string> = {
  'ready-records': ROUTES.readyRecords,
  'needs-attention': ROUTES.needsAttention,
  'new-records': ROUTES.newRecords,
  exception: ROUTES.exception,
  'formula-exceptions': ROUTES.formulaExceptions,
  'related-records': ROUTES.relatedRecords,
};
/** counts every card shows, even at zero; the others only when they hold records */
const ALWAYS_SHOWN = new Set(['ready-records', 'needs-attention', 'new-records']);

function Counts({ formula, counts, name }: { formula: FormulaView; counts: Record<string, number>; name: string }) {
  const items: { key: string; label: string; to: string; n: number }[] = [
    ...CARD_COUNTS
      .filter((c) => ALWAYS_SHOWN.has(c.view) || (counts[c.view] ?? 0) > 0)
      .map((c) => ({ key: c.view, label: c.label, to: at(COUNT_ROUTES[c.view], formula.id), n: counts[c.view] ?? 0 })),
    ...Object.keys(counts).filter((k) => k.startsWith(VALIDATION_COUNT_PREFIX)).sort().map((k) => {
      const bucket = k.slice(VALIDATION_COUNT_PREFIX.length);
      return { key: k, label: bucket, to: at(ROUTES.validationExceptions, formula.id, { customBucket: bucket }), n: counts[k]! };
    }),
  ];
  return (
    <ul className={classes.counts} aria-label={`Records of ${name}`}>
      {items.map((i) => (
        <li key={i.key}>
          <Anchor component={Link} to={i.to} size="sm" aria-label={`${i.label}: ${i.n} ${i.n === 1 ? 'record' : 'records'} of ${name}`}>
            <Text span fw={700}>{i.n}</Text> {i.label}
          </Anchor>
        </li>
      ))}
    </ul>
  );
}

export interface CardArrangement {
  /** the tab the card is shown on, or null on All Formulas */
  tab: Tab | null;
  /** the user's tabs the card can be added to */
  otherTabs: Tab[];
  busy: boolean;
  place(tabId: string): void;
  remove(): void;
  /** the move handle's keys (lift, move, drop) and the card's drag, on a tab */
  handleKeyDown?(e: KeyboardEvent<HTMLButtonElement>): void;
  drag?: {
    onDragStart(e: DragEvent): void;
    onDragOver(e: DragEvent): void;
    onDrop(e: DragEvent): void;
    onDragEnd(): void;
  };
  lifted?: boolean;
  handleRef?(el: HTMLButtonElement | null): void;
}

export function FormulaCard({ formula: f, counts, jobState, job, policies, editTo, mayEdit, arrangement }: {
  formula: FormulaView;
  counts: Record<string, number>;
  jobState: JobStatusState;
  job: JobActor;
  policies: Policies;
  editTo: { pathname: string; search: string };
  mayEdit: boolean;
  arrangement: CardArrangement;
}) {
  const view = formulaLive(f, jobState, policies);
  const { name } = view;
  const { tab, otherTabs, busy } = arrangement;
  let handle: ReactNode = null;
  if (tab && arrangement.handleKeyDown) {
    handle = (
      <ActionIcon
        ref={arrangement.handleRef} variant={arrangement.lifted ? 'filled' : 'subtle'} color="gray" className={classes.handle}
        aria-label={`Move ${name}`} aria-describedby="data-queue-move-help" aria-pressed={arrangement.lifted ?? false}
        onKeyDown={arrangement.handleKeyDown} disabled={busy}
      >
        <IconGripVertical size={18} aria-hidden />
      </ActionIcon>
    );
  }
  return (
    <Card
      component="li" withBorder padding="md" className={classes.card} data-lifted={arrangement.lifted || undefined}
      draggable={!!arrangement.drag && !busy} {...arrangement.drag}
    >
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Group gap={4} wrap="nowrap" align="flex-start" miw={0}>
            {handle}
            <Title order={3} size="h4" className={classes.name}>{name}</Title>
          </Group>
          <StatusBadges formula={f} view={view} />
        </Group>
        <Text size="sm" c="dimmed">{endOf(f.sourceDataSource)} → {endOf(f.firstDestinationDataSource)}</Text>
        <Counts formula={f} counts={counts} name={name} />
        <JobLines formula={f} view={view} jobState={jobState} job={job} />
        {!f.isDraft && <LastRun formula={f} view={view} />}
        <Group gap={4} wrap="wrap" role="group" aria-label={`Actions for ${name}`}>
          <Anchor component={Link} to={editTo} aria-label={`${mayEdit ? 'Edit' : 'Open'} ${name}`} mr="xs" size="sm">{mayEdit ? 'Edit' : 'Open'}</Anchor>
          {view.actions.map((c) => <CommandButton key={c.name} command={c} formula={f} jobState={jobState} job={job} />)}
          <UploadFileAction formula={f} policies={policies} />
          {otherTabs.length > 0 && (
            // the shell's light menu: Mantine's Menu would bring its popover engine to the Data Queue's budget
            <MenuButton
              label={`Add ${name} to a tab`} align="start" disabled={busy}
              target={<Button component="span" size="compact-xs" variant="default" disabled={busy}>Add to tab</Button>}
            >
              {otherTabs.map((t) => <MenuItem key={t.id} onClick={() => arrangement.place(t.id)}>{t.name}</MenuItem>)}
            </MenuButton>
          )}
          {tab && (
            <Button size="compact-xs" variant="default" disabled={busy} onClick={arrangement.remove} aria-label={`Remove ${name} from ${tab.name}`}>
              Remove from tab
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
