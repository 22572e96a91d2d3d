/**
 * What the Workflows viewer reads from a machine (issue 7): the statechart (nesting, parallel
 * regions, initial states, transitions with event, guard and delay), its ELK layout, the bounded
 * paths, and the definition for Stately Studio.
 */
import { describe, expect, it } from 'vitest';
import { createMachine, not, setup } from 'xstate';
import { edgeLabel, eventName, formatDelay } from '../../src/devtools/statechart.ts';
import { definitionJson, guardName, pathsOf, sizeOf, statechartOf } from '../../src/devtools/graph.ts';
import { isMachine, machinesOf } from '../../src/devtools/machineList.ts';
import { elkGraphOf, layoutStatechart } from '../../src/devtools/layout.ts';

const sample = setup({
  types: { events: {} as { type: 'go' } | { type: 'stop' } | { type: 'tick' } },
  guards: { isReady: () => true, isLate: () => false },
  delays: { refreshInterval: 5 * 60_000 },
  actions: { note: () => {} },
}).createMachine({
  id: 'sample',
  initial: 'idle',
  states: {
    idle: {
      on: {
        go: [{ guard: 'isReady', target: 'running' }, { guard: not('isLate'), target: 'done' }],
        tick: { actions: 'note' },
      },
    },
    running: {
      type: 'parallel',
      on: { stop: 'idle' },
      states: {
        left: { initial: 'a', states: { a: { after: { refreshInterval: 'b' } }, b: { after: { 1500: 'a' } } } },
        right: { initial: 'x', states: { x: { always: { guard: 'isLate', target: 'y' } }, y: {} } },
      },
    },
    done: { type: 'final' },
  },
});

describe('statechartOf', () => {
  const chart = statechartOf(sample);
  const node = (id: string) => chart.nodes.find((n) => n.id === id)!;
  it('reads nesting, parallel regions, initial and final states', () => {
    expect(node('sample').parentId).toBeNull();
    expect(node('sample.running').kind).toBe('parallel');
    expect(node('sample.running.left').region).toBe(true);
    expect(node('sample.running.left.a').initial).toBe(true);
    expect(node('sample.running.left.b').initial).toBe(false);
    expect(node('sample.idle').initial).toBe(true);
    expect(node('sample.done').kind).toBe('final');
    // regions are not "initial": all of them are entered
    expect(node('sample.running.left').initial).toBe(false);
  });
  it('labels transitions with event, guard and delay; targetless ones stay inside their state', () => {
    const labels = chart.edges.map((e) => `${e.source} -> ${e.target}: ${e.label}`);
    expect(labels).toContain('sample.idle -> sample.running: go [isReady]');
    expect(labels).toContain('sample.idle -> sample.done: go [!isLate]');
    expect(labels).toContain('sample.running.left.a -> sample.running.left.b: after 5m');
    expect(labels).toContain('sample.running.left.b -> sample.running.left.a: after 1500ms');
    expect(labels).toContain('sample.running.right.x -> sample.running.right.y: always [isLate]');
    expect(labels).toContain('sample.running -> sample.idle: stop');
    expect(node('sample.idle').internal).toEqual(['tick / note']);
    expect(sizeOf(chart)).toEqual({ states: 9, transitions: 7 });
  });
  it('formats delays and xstate event names', () => {
    expect(formatDelay(300_000)).toBe('5m');
    expect(formatDelay(5400_000)).toBe('1h 30m');
    expect(formatDelay(250)).toBe('250ms');
    expect(eventName('xstate.done.actor.snapshot')).toBe('done: snapshot');
    expect(eventName('xstate.error.actor.x')).toBe('error: x');
    expect(eventName('xstate.after.refreshInterval.flags.ready.idle', { refreshInterval: 300_000 })).toBe('after 5m');
    expect(edgeLabel({ kind: 'event', event: 'go', guard: 'isReady', delayName: null, delayMs: null })).toBe('go [isReady]');
    expect(guardName({ type: 'hasSnapshotToKeep', params: {} })).toBe('hasSnapshotToKeep');
  });
});

describe('pathsOf', () => {
  it('walks every guard outcome, with shortest and simple paths', () => {
    const paths = pathsOf(sample);
    expect(paths.error).toBeNull();
    const targets = paths.shortest.map((p) => p.target);
    expect(targets).toContain('done');
    expect(targets.some((t) => t.includes('right.y'))).toBe(true);
    const toDone = paths.shortest.find((p) => p.target === 'done')!;
    expect(toDone.steps).toEqual([{ type: 'go', guard: '!isLate' }]);
    expect(paths.simple!.length).toBeGreaterThanOrEqual(paths.shortest.length);
  });
  it('stops listing simple paths past the bound, and all paths past the state bound, and says so', () => {
    const few = pathsOf(sample, { maxStates: 400, maxSimplePaths: 2 });
    expect(few.simple).toBeNull();
    expect(few.simpleSkipped).toContain('more than 2');
    expect(few.shortest.length).toBeGreaterThan(0);
    const tiny = pathsOf(sample, { maxStates: 2, maxSimplePaths: 2 });
    expect(tiny.error).toMatch(/too big/);
    expect(tiny.shortest).toEqual([]);
  });
});

describe('definitionJson', () => {
  it('is JSON that builds the same structure again (as Stately Studio imports it)', () => {
    const json = JSON.parse(definitionJson(sample));
    expect(json.id).toBe('sample');
    expect(json.states.idle.on.go[0]).toMatchObject({ guard: 'isReady', target: 'running' });
    const again = createMachine(json);
    expect(statechartOf(again).nodes.map((n) => n.id)).toEqual(statechartOf(sample).nodes.map((n) => n.id));
  });
});

describe('machinesOf', () => {
  it('keeps exported machines, once each, and skips helpers and declaration files', () => {
    // the registry's keys are paths from src/devtools: the file name is what is kept
    const entries = machinesOf({
      '../machines/b.ts': { sampleMachine: sample, again: sample, helper: () => 1 },
      '../machines/helper.ts': { formatDelay },
      '../machines/types.d.ts': { other: createMachine({ id: 'zzz' }) },
    });
    expect(entries.map((e) => [e.id, e.file, e.exportName])).toEqual([['sample', 'b.ts', 'sampleMachine']]);
    expect(isMachine({ config: {}, root: {}, transition: () => {} })).toBe(true);
    expect(isMachine({ config: {} })).toBe(false);
  });
});

describe('layout', () => {
  it('gives every state a box inside its parent, every transition a path and a label, and each compound state an initial marker', async () => {
    const chart = statechartOf(sample);
    expect(elkGraphOf(chart).layoutOptions!['elk.algorithm']).toBe('layered');
    const laid = await layoutStatechart(chart);
    expect(laid.nodes).toHaveLength(chart.nodes.length);
    expect(laid.edges).toHaveLength(chart.edges.length);
    for (const e of laid.edges) {
      expect(e.points.length).toBeGreaterThanOrEqual(2);
      expect(e.label.width).toBeGreaterThan(0);
    }
    const box = new Map(laid.nodes.map((n) => [n.node.id, n]));
    for (const n of laid.nodes) {
      if (!n.node.parentId) continue;
      const p = box.get(n.node.parentId)!;
      expect(n.x >= p.x && n.y >= p.y && n.x + n.width <= p.x + p.width + 0.5 && n.y + n.height <= p.y + p.height + 0.5, n.node.id).toBe(true);
    }
    expect(laid.initials.map((m) => m.targetId).sort()).toEqual(['sample.idle', 'sample.running.left.a', 'sample.running.right.x']);
  });
});
