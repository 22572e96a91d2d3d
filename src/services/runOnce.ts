/**
 * Run once (SPEC.md section 5: a date range of at most 30 days) on a live formula: one run over the
 * range, asked for by the wizard's scheduling step. Apart from the formulas service, which the Data
 * Queue loads, so only the wizard carries it.
 */
import { formulasService, type RunView } from '../domain/api/formulas.ts';
import type { RunOnce } from '../domain/formula/parts.ts';
import { serviceClient, type RequestOptions } from './gateway.ts';

const client = serviceClient(formulasService);

export const runOnce = (id: string, range: RunOnce, o?: RequestOptions): Promise<RunView> => client.call('run', { params: { id }, body: { runOnce: range } }, o);
