/**
 * What the mapping step loads, and which service failed when it could not: the destination's and
 * the source's fields (a file-upload formula's source fields are its sample's columns), the sample
 * rows for the preview, and the four saved parts. SPEC.md section 8: load errors name the failing
 * service as temporarily down, or say a configuration could not be retrieved.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { FieldInfo } from '../../../../domain/api/integrations.ts';
import { REFUSED_MESSAGES, requestFailure } from '../../../../domain/errors.ts';
import type { FormulaSample, FormulaView } from '../../../../domain/api/formulas.ts';
import { useWizardServices } from '../../step.tsx';
import type { SavedParts } from './mappingForm.ts';

export const LOAD_MESSAGES = {
  title: 'Error loading Mapping',
  fields: 'Failed to fetch fields.',
  integrations: 'Integrations are temporarily down.',
  source: 'Source metadata is temporarily down.',
  destination: 'Destination metadata is temporarily down.',
  mapping: 'The mapping configuration could not be retrieved.',
  transform: 'The transform configuration could not be retrieved.',
  validation: 'The validation rules could not be retrieved.',
  summary: 'The summary fields could not be retrieved.',
  sample: 'The sample rows could not be loaded.',
  /** a refusal, not an outage: reading a data source's fields needs datasource view */
  fieldsRefused: REFUSED_MESSAGES.sourceFields,
} as const;

/** A field of the source, as the selects offer it. */
export interface SourceField { name: string; label: string }

export interface MappingData {
  destination: FieldInfo[];
  source: SourceField[];
  saved: SavedParts;
}

export type SampleState = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; sample: FormulaSample };

export type LoadState =
  | { status: 'loading' }
  | { status: 'failed'; messages: string[] }
  | { status: 'ready'; data: MappingData };

const silent = { silent: true } as const;

/**
 * A failed fields call: refused (the person may not read it: said so, never as an outage), the
 * system behind it could not be reached (its metadata is down), or the integrations service itself
 * failed (a server error, or no answer at all).
 */
function fieldsFailure(err: unknown, role: 'source' | 'destination'): string {
  const failure = requestFailure(err, { refused: LOAD_MESSAGES.fieldsRefused });
  if (failure.kind === 'refused') return failure.message;
  if (failure.kind === 'service') return LOAD_MESSAGES.integrations;
  return LOAD_MESSAGES[role];
}

/** A failed part: refused says so; anything else, that the part could not be retrieved. */
function partFailure(err: unknown, message: string): string {
  const failure = requestFailure(err);
  return failure.kind === 'refused' ? failure.message : message;
}

const settled = <T>(p: Promise<T>) => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));

export function useMappingData(formula: FormulaView) {
  const { formulas, integrations } = useWizardServices();
  const [state, setState] = useState<LoadState>({ status: 'loading' });
  const [sample, setSample] = useState<SampleState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [sampleAttempt, setSampleAttempt] = useState(0);
  const live = useRef(0);

  // the ends by value: a new formula object with the same ends does not reload (and lose edits)
  const destId = formula.firstDestinationDataSource?.dataSourceId;
  const destObject = formula.firstDestinationDataSource?.object;
  const srcId = formula.sourceDataSource?.dataSourceId;
  const srcObject = formula.sourceDataSource?.object;
  const fromUpload = formula.usesFileUpload;
  /** nothing to map before the data-sources step chose both ends */
  const ends = Boolean(destId && destObject && (fromUpload || (srcId && srcObject)));

  useEffect(() => {
    const run = ++live.current;
    const current = () => run === live.current;
    if (!ends) return;
    setState({ status: 'loading' });
    setSample({ status: 'loading' });
    void (async () => {
      const samplePromise = settled(formulas.sample(formula.id, silent));
      const [dest, src, mapping, transform, validation, summary, sampleResult] = await Promise.all([
        destId && destObject ? settled(integrations.fields(destId, destObject, silent)) : null,
        !fromUpload && srcId && srcObject ? settled(integrations.fields(srcId, srcObject, silent)) : null,
        settled(formulas.getPart(formula.id, 'mapping', silent)),
        settled(formulas.getPart(formula.id, 'transform', silent)),
        settled(formulas.getPart(formula.id, 'validation', silent)),
        settled(formulas.getPart(formula.id, 'summary-fields', silent)),
        samplePromise,
      ]);
      if (!current()) return;
      setSample(sampleResult.ok ? { status: 'ready', sample: sampleResult.value } : { status: 'failed' });

      const down: string[] = [];
      if (dest && !dest.ok) down.push(fieldsFailure(dest.error, 'destination'));
      if (src && !src.ok) down.push(fieldsFailure(src.error, 'source'));
      // a file-upload formula's source fields are its sample's columns
      if (fromUpload && !sampleResult.ok) down.push(partFailure(sampleResult.error, LOAD_MESSAGES.source));
      const parts: string[] = [];
      if (!mapping.ok) parts.push(partFailure(mapping.error, LOAD_MESSAGES.mapping));
      if (!transform.ok) parts.push(partFailure(transform.error, LOAD_MESSAGES.transform));
      if (!validation.ok) parts.push(partFailure(validation.error, LOAD_MESSAGES.validation));
      if (!summary.ok) parts.push(partFailure(summary.error, LOAD_MESSAGES.summary));
      if (down.length || parts.length) {
        setState({ status: 'failed', messages: [...(down.length ? [LOAD_MESSAGES.fields, ...new Set(down)] : []), ...new Set(parts)] });
        return;
      }

      const source: SourceField[] = fromUpload
        ? (sampleResult.ok ? sampleResult.value.fields : []).map((name) => ({ name, label: name }))
        : (src?.ok ? src.value.fields : []).map((f) => ({ name: f.name, label: f.label }));
      setState({
        status: 'ready',
        data: {
          destination: dest?.ok ? dest.value.fields : [],
          source,
          saved: {
            mapping: mapping.ok ? mapping.value : null,
            transform: transform.ok ? transform.value : null,
            validation: validation.ok ? validation.value : null,
            summary: summary.ok ? summary.value : null,
          },
        },
      });
    })();
    return () => { live.current++; };
  }, [attempt, formula.id, formulas, integrations, destId, destObject, srcId, srcObject, fromUpload, ends]);

  // the sample again on its own: the mapping can go on without the preview
  useEffect(() => {
    if (sampleAttempt === 0) return;
    let current = true;
    setSample({ status: 'loading' });
    formulas.sample(formula.id, silent).then(
      (s) => { if (current) setSample({ status: 'ready', sample: s }); },
      () => { if (current) setSample({ status: 'failed' }); },
    );
    return () => { current = false; };
  }, [sampleAttempt, formula.id, formulas]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  const retrySample = useCallback(() => setSampleAttempt((n) => n + 1), []);
  return { ends, state, sample, retry, retrySample };
}
