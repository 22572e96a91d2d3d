/**
 * Reviewing one record: its incoming values beside a destination candidate's, differences marked;
 * each candidate with its confidence score and match reasons, to compare and pick; create new or
 * add to Ready; an incoming value edited inline, and per field whether it overwrites the
 * destination's; Match Search to find a destination record by hand. The record-review machine
 * (src/machines/recordReview.ts) holds the workflow.
 */
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { useMediaQuery } from '@mantine/hooks';
import {
  Alert, Anchor, Badge, Button, Card, Checkbox, Group, Paper, Skeleton, Stack, Table, Text, TextInput, Title, VisuallyHidden,
} from '@mantine/core';
import type { CandidateView, RecordDetail } from '../../domain/api/records.ts';
import { fieldHeading } from '../../domain/formula/fieldHeading.ts';
import { destinationName, recordLabel } from '../../domain/formula/recordLabel.ts';
import { BUCKET_LABELS, RECORD_STATE_LABELS } from '../../domain/formula/statuses.ts';
import { sameFieldValue } from '../../domain/formula/matchKeys.ts';
import { can, type Policies } from '../../domain/roles.ts';
import { recordReviewMachine, REVIEW_ACTION_LABELS, type RecordReviewContext } from '../../machines/recordReview.ts';
import { Reasons } from './Reasons.tsx';

export interface RecordReviewProps {
  formulaId: string;
  recordId: string;
  policies: Policies;
  logic?: typeof recordReviewMachine;
  /** told after each change, so the list behind reads its page again */
  onChanged?(): void;
  /** the heading level of the review's title (2 inside a page, 2 in the drawer under the page's h1) */
  headingLevel?: 2 | 3;
  /** the one-at-a-time review's shortcuts: P picks the best candidate, N creates new, R adds to Ready */
  shortcuts?: boolean;
}

/** Keys typed into a field are the field's, not shortcuts. */
export function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return e.ctrlKey || e.metaKey || e.altKey || !!t?.closest?.('input, textarea, select, [contenteditable="true"]');
}

const text = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

export function RecordReview({ formulaId, recordId, policies, logic = recordReviewMachine, onChanged, headingLevel = 2, shortcuts = false }: RecordReviewProps) {
  const actor = useActorRef(logic, { input: { formulaId, recordId, canEdit: can(policies, 'records', 'edit') } });
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  const changed = useRef(c.changes);
  useEffect(() => {
    if (c.changes !== changed.current) { changed.current = c.changes; onChanged?.(); }
  }, [c.changes, onChanged]);
  useEffect(() => {
    if (!shortcuts) return undefined;
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e)) return;
      const key = e.key.toLowerCase();
      const detail = actor.getSnapshot().context.detail;
      if (key === 'p') {
        const best = [...(detail?.candidates ?? [])].sort((a, b) => b.score - a.score)[0];
        if (best) actor.send({ type: 'match.pick', candidateId: best.id });
      } else if (key === 'n') actor.send({ type: 'record.act', action: 'createNew' });
      else if (key === 'r') actor.send({ type: 'record.act', action: 'ready' });
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [shortcuts, actor]);

  if (state.matches('loading') && !c.detail) {
    return (
      <Stack role="status" aria-busy="true" aria-label="Loading the record" gap="xs">
        <Skeleton height={24} width="50%" /><Skeleton height={120} /><Skeleton height={80} />
      </Stack>
    );
  }
  if (state.matches('failed') || !c.detail) {
    return (
      <Alert color="red" role="alert" title="The record could not be loaded">
        <Button size="xs" mt="xs" onClick={() => actor.send({ type: 'record.reload' })}>Try again</Button>
      </Alert>
    );
  }
  const d = c.detail;
  const busy = !state.matches('showing');
  const candidate = d.candidates.find((x) => x.id === c.compared);
  // a column heading: the destination's own id tells the compared candidate apart in fewest words
  const compared = candidate ? { id: candidate.id, name: candidate.ownId ? `${candidate.ownId.label} ${candidate.ownId.value}` : destinationName(candidate), fields: candidate.fields }
    : d.destination && d.destination.id === c.compared ? { id: d.destination.id, name: d.destination.id, fields: d.destination.fields } : null;
  const chosen = d.candidates.find((x) => x.id === d.recordId);
  return (
    <Stack gap="md" aria-label={`Record ${recordLabel(d.title, d.sourcePosition)}`} role="region">
      <Stack gap={2}>
        {/* a smaller title on a phone: a long e-mail address fits its line rather than breaking mid-word */}
        <Title order={headingLevel} fz={{ base: 'h3', sm: 'h2' }} style={{ overflowWrap: 'break-word' }}>{d.title ?? d.sourcePosition}</Title>
        {/* where it came from in words; the source's own key stays findable beside it */}
        <Text size="sm" c="dimmed" data-testid="source-position" style={{ overflowWrap: 'anywhere' }}>
          {d.title && <>{d.sourcePosition} · </>}<span title="The record's key in the source">Source key {d.sourceKey}</span>
        </Text>
        <Group gap="xs">
          <Badge variant="light">{RECORD_STATE_LABELS[d.state]}</Badge>
          <Badge variant="outline">{d.customBucket ?? BUCKET_LABELS[d.bucket]}</Badge>
          {d.recordId && (
            <Text size="sm" title={d.recordId}>
              Destination record {d.destination?.page && d.destination.id === d.recordId
                ? <DestinationPage href={d.destination.page} name={chosen ? destinationName(chosen) : d.recordId}>{chosen ? destinationName(chosen) : d.recordId}</DestinationPage>
                : chosen ? destinationName(chosen) : d.recordId}
            </Text>
          )}
        </Group>
        {d.errorReason && <Text size="sm" c="red.8">{d.errorReason}</Text>}
        {/* why routing put it here ('Match not certain: review', a copy waiting for its first) */}
        {typeof d.matching?.routeReason === 'string' && <Text size="sm" data-testid="route-reason">{d.matching.routeReason}</Text>}
        {/* what routing read: for a related record, the record it waits for */}
        <Facts summary="Matching data" facts={d.matching} />
        <Facts summary="Source values" facts={d.raw} />
      </Stack>
      <Group gap="xs" role="toolbar" aria-label="Record decisions">
        {(['ready', 'createNew'] as const).map((a) => (
          <Button key={a} size="xs" disabled={busy} loading={state.matches('acting') && c.pendingAction === a} onClick={() => actor.send({ type: 'record.act', action: a })}>
            {REVIEW_ACTION_LABELS[a]}
          </Button>
        ))}
      </Group>
      {c.notice && <Alert color="green" role="status">{c.notice}</Alert>}
      {c.actionError && <Alert color="red" role="alert" title={c.actionError} />}
      <Comparison
        detail={d} compared={compared} context={c} busy={busy}
        onChange={(change) => actor.send({ type: 'record.change', change })}
        onCancel={(field) => actor.send({ type: 'edit.cancel', field })}
      />
      <Candidates
        candidates={d.candidates} chosen={d.destination?.id ?? null} compared={c.compared} busy={busy} headingLevel={headingLevel}
        onCompare={(candidateId) => actor.send({ type: 'candidate.compare', candidateId })}
        onPick={(candidateId) => actor.send({ type: 'match.pick', candidateId })}
      />
      <MatchSearch
        context={c} searching={state.matches('searching')} busy={busy} headingLevel={headingLevel}
        onSearch={(q) => actor.send({ type: 'search.submit', q })}
        onPick={(candidateId) => actor.send({ type: 'match.pick', candidateId })}
      />
    </Stack>
  );
}

/** A record's facts as a key: value list behind a summary. */
function Facts({ summary, facts }: { summary: string; facts: Record<string, unknown> | null }) {
  const entries = Object.entries(facts ?? {});
  if (!entries.length) return null;
  return (
    <details>
      <summary style={{ cursor: 'pointer', fontSize: 'var(--mantine-font-size-sm)' }}>{summary}</summary>
      <dl style={{ margin: 0, fontSize: 'var(--mantine-font-size-sm)' }}>
        {entries.map(([k, v]) => (
          <div key={k} style={{ display: 'flex', gap: 4 }}>
            <dt style={{ fontWeight: 500 }}>{k}:</dt>
            <dd style={{ margin: 0, wordBreak: 'break-word' }}>{text(v)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

/** The incoming values beside the compared candidate's, a row per field; differing rows say so. */
function Comparison({ detail: d, compared, context: c, busy, onChange, onCancel }: {
  detail: RecordDetail;
  compared: { id: string; name: string; fields: Record<string, unknown> } | null;
  context: RecordReviewContext;
  busy: boolean;
  onChange(change: { field: string; value: string | null } | { field: string; overwrite: boolean }): void;
  onCancel(field: string): void;
}) {
  const incoming = d.transformed ?? d.raw;
  // the fields the formula writes are compared; the destination record's others are shown for
  // context only: the formula leaves them as they are, so they never differ
  const fields = Object.keys(incoming);
  const others = Object.keys(compared?.fields ?? {}).filter((f) => !Object.hasOwn(incoming, f));
  // at a phone's width each field is a block (its name, then both values one above the other), so
  // the destination's value is in sight without scrolling the table sideways
  const narrow = useMediaQuery('(max-width: 36em)');
  if (narrow) {
    const valueRow = (label: string, value: ReactNode) => (
      <div><Text size="xs" c="dimmed">{label}</Text>{value}</div>
    );
    return (
      <Stack gap="xs" role="list" aria-label="Incoming and destination values">
        {fields.map((field) => {
          const differs = !!compared && !sameFieldValue(field, incoming[field], compared.fields[field]);
          return (
            <Paper key={field} role="listitem" withBorder p="xs" bg={differs ? 'yellow.0' : undefined} data-differs={differs || undefined} aria-label={fieldHeading(field)}>
              <Text size="sm" fw={600}>
                {fieldHeading(field)}
                {differs && <Badge ml={6} size="xs" color="dark" variant="outline">differs</Badge>}
              </Text>
              {valueRow('Incoming', (
                <InlineValue
                  field={field} value={incoming[field]} kept={Object.hasOwn(c.drafts, field) ? c.drafts[field]! : undefined}
                  error={c.fieldErrors[field] || null} disabled={busy}
                  onSave={(value) => onChange({ field, value })} onCancel={() => onCancel(field)}
                />
              ))}
              {valueRow(compared ? `Destination ${compared.name}` : 'Destination', <Text size="sm" data-destination-value>{text(compared?.fields[field])}</Text>)}
              {compared && (
                <Checkbox
                  mt={4} size="xs" label="Overwrite in the destination" aria-label={`Overwrite ${fieldHeading(field)} in the destination`}
                  checked={d.overwrite[field] !== false} disabled={busy} onChange={(e) => onChange({ field, overwrite: e.currentTarget.checked })}
                />
              )}
            </Paper>
          );
        })}
        {others.map((field) => (
          <Paper key={field} role="listitem" withBorder p="xs" data-unmapped aria-label={fieldHeading(field)}>
            <Text size="sm" c="dimmed">{fieldHeading(field)} (not mapped)</Text>
            {valueRow('Destination', <Text size="sm" c="dimmed">{text(compared?.fields[field])}</Text>)}
          </Paper>
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table aria-label="Incoming and destination values" withTableBorder>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Field</Table.Th>
            <Table.Th>Incoming</Table.Th>
            <Table.Th title={compared?.id}>{compared ? `Destination ${compared.name}` : 'Destination'}</Table.Th>
            {compared && <Table.Th>Overwrite</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {fields.map((field) => {
            const differs = !!compared && !sameFieldValue(field, incoming[field], compared.fields[field]);
            return (
              <Table.Tr key={field} bg={differs ? 'yellow.0' : undefined} data-differs={differs || undefined}>
                <Table.Th scope="row">
                  {fieldHeading(field)}
                  {differs && <Badge ml={6} size="xs" color="dark" variant="outline">differs</Badge>}
                </Table.Th>
                <Table.Td>
                  <InlineValue
                    field={field} value={incoming[field]} kept={Object.hasOwn(c.drafts, field) ? c.drafts[field]! : undefined}
                    error={c.fieldErrors[field] || null} disabled={busy}
                    onSave={(value) => onChange({ field, value })} onCancel={() => onCancel(field)}
                  />
                </Table.Td>
                <Table.Td><Text size="sm" data-destination-value>{text(compared?.fields[field])}</Text></Table.Td>
                {compared && (
                  <Table.Td>
                    <Checkbox
                      aria-label={`Overwrite ${fieldHeading(field)} in the destination`} checked={d.overwrite[field] !== false} disabled={busy}
                      onChange={(e) => onChange({ field, overwrite: e.currentTarget.checked })}
                    />
                  </Table.Td>
                )}
              </Table.Tr>
            );
          })}
          {others.map((field) => (
            <Table.Tr key={field} data-unmapped>
              <Table.Th scope="row"><Text span size="sm" c="dimmed">{fieldHeading(field)}</Text></Table.Th>
              <Table.Td><Text size="sm" c="dimmed">Not mapped</Text></Table.Td>
              <Table.Td><Text size="sm" c="dimmed">{text(compared?.fields[field])}</Text></Table.Td>
              <Table.Td />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * An incoming value, and its inline editor once Edit is pressed. A value sent to the server keeps
 * its editor open (`kept`) until the server saved it: refused, the editor still holds what was
 * typed, with the reason and the value the server kept; saved, the cell shows the server's value.
 */
function InlineValue({ field, value, kept, error, disabled, onSave, onCancel }: {
  field: string; value: unknown; kept: string | null | undefined; error: string | null; disabled: boolean;
  onSave(value: string | null): void; onCancel(): void;
}) {
  const [draft, setDraft] = useState<string | null>(kept === undefined ? null : kept ?? '');
  // saved (or dropped): the editor closes and the server's value shows
  useEffect(() => { setDraft(kept === undefined ? null : kept ?? ''); }, [kept]);
  const heading = fieldHeading(field);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSave(draft === '' ? null : draft);
  };
  const reason = error && <Text size="xs" c="red.8" role="alert">{error}</Text>;
  if (draft === null) {
    return (
      <Stack gap={2}>
        <Group gap="xs" wrap="nowrap">
          <Text size="sm">{text(value)}</Text>
          <Button size="compact-xs" variant="subtle" disabled={disabled} onClick={() => setDraft(text(value))} aria-label={`Edit ${heading}`}>Edit</Button>
        </Group>
        {reason}
      </Stack>
    );
  }
  const cancel = () => { setDraft(null); if (kept !== undefined) onCancel(); };
  return (
    <Stack gap={2}>
      {kept !== undefined && <Text size="xs" c="dimmed" data-testid="saved-value">Saved value: {text(value) || '(blank)'}</Text>}
      <form onSubmit={submit} aria-label={`Edit ${heading}`}>
        <Group gap="xs" wrap="nowrap">
          <TextInput
            size="xs" aria-label={`New ${heading}`} value={draft} onChange={(e) => setDraft(e.currentTarget.value)} autoFocus
            error={!!error}
          />
          <Button size="compact-xs" type="submit" disabled={disabled}>Save</Button>
          <Button size="compact-xs" variant="default" disabled={disabled} onClick={cancel}>Cancel</Button>
        </Group>
      </form>
      {reason}
    </Stack>
  );
}

/** A destination record's own page in the destination (Salesforce, Raiser's Edge NXT), in a new tab. */
function DestinationPage({ href, name, children }: { href: string; name: string; children: ReactNode }) {
  return (
    <Anchor href={href} target="_blank" rel="noopener noreferrer" fw={600} aria-label={`Open ${name} in the destination (new tab)`}>
      {children}
    </Anchor>
  );
}

function Candidates({ candidates, chosen, compared, busy, headingLevel, onCompare, onPick }: {
  candidates: CandidateView[]; chosen: string | null; compared: string | null; busy: boolean; headingLevel: 2 | 3;
  onCompare(id: string): void; onPick(id: string): void;
}) {
  return (
    <Stack gap="xs">
      <Title order={(headingLevel + 1) as 3 | 4}>Candidates</Title>
      {candidates.length === 0 && <Text size="sm" c="dimmed">The searches found no destination record. Use Match Search, or create a new record.</Text>}
      {candidates.map((x) => {
        const name = destinationName(x);
        return (
          <Card key={x.id} withBorder padding="xs" aria-label={`Candidate ${name}`} role="group">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Stack gap={2}>
                <Group gap="xs">
                  {(x.title || !x.ownId) && <Text size="sm" fw={600} title={x.id}>{x.title ?? x.id}</Text>}
                  {x.ownId && (
                    <Text size="sm" data-testid="own-id">
                      {x.ownId.label} {x.page ? <DestinationPage href={x.page} name={name}>{x.ownId.value}</DestinationPage> : <Text span fw={600}>{x.ownId.value}</Text>}
                    </Text>
                  )}
                  {!x.ownId && x.page && <DestinationPage href={x.page} name={name}>Open in the destination</DestinationPage>}
                  <Badge variant="light">Confidence {x.score}</Badge>
                  {chosen === x.id && <Badge color="green">Chosen</Badge>}
                </Group>
                <Text size="xs" c="dimmed">Found by {x.scenario}</Text>
                <Reasons reasons={x.reasons} />
              </Stack>
              <Group gap="xs">
                <Button size="xs" variant="default" disabled={compared === x.id} onClick={() => onCompare(x.id)} aria-label={`Compare ${name}`}>Compare</Button>
                <Button size="xs" disabled={busy || chosen === x.id} onClick={() => onPick(x.id)} aria-label={`Pick this match ${name}`}>Pick this match</Button>
              </Group>
            </Group>
          </Card>
        );
      })}
    </Stack>
  );
}

function MatchSearch({ context: c, searching, busy, headingLevel, onSearch, onPick }: {
  context: RecordReviewContext; searching: boolean; busy: boolean; headingLevel: 2 | 3;
  onSearch(q: string): void; onPick(id: string): void;
}) {
  const [q, setQ] = useState('');
  const submit = (e: FormEvent) => { e.preventDefault(); onSearch(q); };
  const results = c.results;
  return (
    <Stack gap="xs">
      <Title order={(headingLevel + 1) as 3 | 4}>Match Search</Title>
      <form onSubmit={submit} aria-label="Match Search" noValidate>
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Find a destination record" description="At least 3 characters" value={q} error={c.searchProblem}
            onChange={(e) => setQ(e.currentTarget.value)}
          />
          <Button type="submit" loading={searching}>Search</Button>
        </Group>
      </form>
      {results && results.results.length === 0 && <Text size="sm" c="dimmed">No destination record matches.</Text>}
      {results && results.results.length > 0 && (
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label="Match Search results">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Destination record</Table.Th>
                {results.fields.map((f) => <Table.Th key={f}>{f}</Table.Th>)}
                <Table.Th><VisuallyHidden>Pick</VisuallyHidden></Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {results.results.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td title={r.id}>{destinationName(r)}</Table.Td>
                  {results.fields.map((f) => <Table.Td key={f}>{text(r.fields[f])}</Table.Td>)}
                  <Table.Td>
                    <Button size="compact-xs" disabled={busy} onClick={() => onPick(r.id)} aria-label={`Pick ${destinationName(r)}`}>Pick</Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
