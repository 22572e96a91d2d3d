/** The connector kit's export jobs (a job looked at until done, its CSV files in batches) and vendor sessions (one at a time, renewed when refused). */
import { describe, expect, it } from 'vitest';
import { awaitJob, exportBatches, exportCsv, JOB_POLL, readJobAt } from '../../server/connectors/kit/exportJob.ts';
import { vendorSession } from '../../server/connectors/kit/session.ts';

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('export jobs', () => {
  it('a job is looked at until done; a failed one in its words; one the vendor lost is null', async () => {
    JOB_POLL.firstMs = 1;
    let looks = 0;
    const job = await awaitJob({ name: 'V', look: async () => ({ n: ++looks }), state: (j) => (j.n < 3 ? 'waiting' : 'done'), failed: () => '' });
    expect(job).toEqual({ n: 3 });
    await expect(awaitJob({ name: 'V', look: async () => ({ why: 'disk full' }), state: () => 'failed', failed: (j) => `V could not export: ${j.why}` }))
      .rejects.toThrow('V could not export: disk full');
    await expect(awaitJob({ name: 'V', look: async () => null, state: () => 'done', failed: () => '' })).resolves.toBeNull();
  });

  it('CSV files in batches with the job, file and row next; a run goes on from the row it names; a file without the id column is refused', async () => {
    const files = ['\uFEFFId,Name\r\n1,"Ada, Countess"\r\n2,Grace\r\n3,\r\n', 'Id,Name\n4,Alan\n'].map((t) => async () => t);
    const batches = await all(exportBatches({ name: 'V', job: '9', to: 'T', files, idColumn: 'Id', size: 2, resume: null }));
    expect(batches.map((b) => [b.records.map((r) => r.id), b.last, b.next])).toEqual([
      [['1', '2'], false, { job: '9', to: 'T', file: 0, row: 2 }],
      [['3'], false, { job: '9', to: 'T', file: 1, row: 0 }],
      [['4'], true, { job: '9', to: 'T', file: 2, row: 0 }],
    ]);
    expect(batches[0]!.records[0]!.fields).toEqual({ Id: '1', Name: 'Ada, Countess' });
    expect(batches[1]!.records[0]!.fields).toEqual({ Id: '3' });
    const resumed = await all(exportBatches({ name: 'V', job: '9', to: 'T', files, idColumn: 'Id', size: 2, resume: readJobAt(JSON.stringify(batches[0]!.next)) }));
    expect(resumed.flatMap((b) => b.records.map((r) => r.id))).toEqual(['3', '4']);
    expect(readJobAt('not json')).toBeNull();
    expect(await all(exportBatches({ name: 'V', job: '9', to: 'T', files: [], idColumn: 'Id', size: 2, resume: null }))).toEqual([{ records: [], last: true, next: { job: '9', to: 'T', file: 0, row: 0 } }]);
    await expect(all(exportBatches({ name: 'V', job: '9', to: 'T', files: [async () => 'Other\n1\n'], idColumn: 'Id', size: 2, resume: null }))).rejects.toThrow("V's export file has no Id column.");
    expect(exportCsv('A,B\n').rows).toEqual([]);
  });
});

describe('vendor sessions', () => {
  it('one sign-in for callers at once, reused until near its expiry, renewed when forced; a failed sign-in is not kept', async () => {
    let signIns = 0;
    const obtain = (life: number) => async () => ({ token: `t${++signIns}`, expiresOn: Date.now() + life, about: {} });
    const [a, b] = await Promise.all([vendorSession('k1', false, obtain(3_600_000)), vendorSession('k1', false, obtain(3_600_000))]);
    expect([a.token, b.token, signIns]).toEqual(['t1', 't1', 1]);
    expect((await vendorSession('k1', true, obtain(3_600_000))).token).toBe('t2');
    // less than a minute left: signed in again
    await vendorSession('k2', false, obtain(30_000));
    expect((await vendorSession('k2', false, obtain(3_600_000))).token).toBe('t4');
    await expect(vendorSession('k3', false, async () => { throw new Error('refused'); })).rejects.toThrow('refused');
    expect((await vendorSession('k3', false, obtain(3_600_000))).token).toBe('t5');
  });
});
