/**
 * A laid-out statechart drawn as SVG: states as rounded boxes (compound states hold their
 * children; the regions of a parallel state have dashed borders; final states a double border),
 * a filled dot with an arrow marking each initial state, and transitions as arrows labelled
 * "event [guard]" or "after 5m". Every state is a button: click it, or focus it and press Enter
 * or Space, to select it. Presentational: it is told what to draw and what is selected.
 */
import type { KeyboardEvent } from 'react';
import { TEXT, detailLines, type LaidOutChart, type LaidOutNode } from '../statechart.ts';

export interface StatechartDiagramProps {
  layout: LaidOutChart;
  /** the machine's id, for the diagram's name */
  machineId: string;
  selectedState: string | null;
  onSelectState(id: string): void;
}

const COLORS = {
  stroke: '#495057',
  root: '#f8f9fa',
  atomic: '#ffffff',
  compound: '#f1f3f5',
  selected: '#1c7ed6',
  selectedFill: '#e7f5ff',
  edge: '#868e96',
  edgeActive: '#1c7ed6',
  text: '#212529',
  muted: '#868e96',
};

const path = (points: { x: number; y: number }[]) => points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');

function kindText(n: LaidOutNode): string | null {
  if (n.node.kind === 'parallel') return 'parallel';
  if (n.node.kind === 'final') return 'final';
  if (n.node.kind === 'history') return 'history';
  return null;
}

export function StatechartDiagram({ layout, machineId, selectedState, onSelectState }: StatechartDiagramProps) {
  const onKey = (id: string) => (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onSelectState(id);
    }
  };
  const nodes = [...layout.nodes].sort((a, b) => a.depth - b.depth);
  const width = Math.ceil(layout.width);
  const height = Math.ceil(layout.height);

  return (
    <svg
      role="group"
      aria-label={`Statechart of ${machineId}`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      style={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: 12, display: 'block' }}
    >
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" fill={COLORS.edge} />
        </marker>
        <marker id="arrow-active" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" fill={COLORS.edgeActive} />
        </marker>
      </defs>

      {nodes.map((n) => {
        const selected = n.node.id === selectedState;
        const root = n.node.parentId === null;
        const compound = n.node.kind === 'compound' || n.node.kind === 'parallel';
        const lines = detailLines(n.node);
        const kind = kindText(n);
        return (
          <g
            key={n.node.id}
            role="button"
            tabIndex={0}
            // every word the state shows, in its order, so the name holds the visible label (WCAG 2.5.3);
            // each text ends in a space, so its words do not run into the next text's
            aria-label={[`State ${n.node.key}`, kind, ...lines].filter(Boolean).join(' ')}
            aria-pressed={selected}
            data-state-id={n.node.id}
            onClick={(e) => { e.stopPropagation(); onSelectState(n.node.id); }}
            onKeyDown={onKey(n.node.id)}
            style={{ cursor: 'pointer' }}
          >
            <rect
              x={n.x} y={n.y} width={n.width} height={n.height} rx={root ? 4 : 8}
              fill={selected ? COLORS.selectedFill : root ? COLORS.root : compound ? COLORS.compound : COLORS.atomic}
              stroke={selected ? COLORS.selected : COLORS.stroke}
              strokeWidth={selected ? 2.5 : root ? 1 : 1.4}
              strokeDasharray={n.node.region ? '6 4' : undefined}
            />
            {n.node.kind === 'final' && (
              <rect x={n.x + 3} y={n.y + 3} width={n.width - 6} height={n.height - 6} rx={6} fill="none" stroke={COLORS.stroke} />
            )}
            <text x={n.x + TEXT.padding} y={n.y + 17} fill={COLORS.text} fontWeight={600}>{n.node.key}{' '}</text>
            {kind && (
              <text x={n.x + n.width - TEXT.padding} y={n.y + 17} fill={COLORS.muted} textAnchor="end" fontSize={10}>
                {kind === 'parallel' ? '∥ parallel' : kind}{' '}
              </text>
            )}
            {lines.map((line, i) => (
              <text key={i} x={n.x + TEXT.padding} y={n.y + TEXT.headerHeight + 10 + i * TEXT.lineHeight} fill={COLORS.muted} fontSize={11}>{line}{' '}</text>
            ))}
          </g>
        );
      })}

      {layout.initials.map((m) => (
        <g key={`${m.parentId}-initial`} aria-hidden="true" data-initial-of={m.targetId}>
          <circle cx={m.x} cy={m.y} r={m.r} fill={COLORS.text} />
          {m.points.length > 1 && <path d={path(m.points)} fill="none" stroke={COLORS.text} strokeWidth={1.4} markerEnd="url(#arrow)" />}
        </g>
      ))}

      {layout.edges.map((e) => {
        const active = e.edge.source === selectedState;
        return (
          <g key={e.edge.id} data-edge={e.edge.id} data-source={e.edge.source} data-target={e.edge.target}>
            <path
              d={path(e.points)} fill="none"
              stroke={active ? COLORS.edgeActive : COLORS.edge}
              strokeWidth={active ? 2 : 1.2}
              strokeDasharray={e.edge.kind === 'after' ? '5 3' : undefined}
              markerEnd={active ? 'url(#arrow-active)' : 'url(#arrow)'}
            />
            <rect x={e.label.x} y={e.label.y} width={e.label.width} height={e.label.height} rx={3} fill="#ffffff" fillOpacity={0.9} />
            <text x={e.label.x + 4} y={e.label.y + 12} fill={active ? COLORS.edgeActive : COLORS.text} fontSize={11}>{e.label.text}</text>
          </g>
        );
      })}
    </svg>
  );
}
