/**
 * A destination's candidate index, held by the process that runs formulas (DESIGN.md section 4b):
 * its records' blocking keys (src/domain/formula/blockingKeys.ts) as postings in typed arrays, and
 * each record as a compact comparison record (its fields and match keys, UTF-8 in buffers outside
 * the V8 heap). Loaded once per destination and database, then kept current before each use from
 * what was written since (by any process: the connector follows modification time, and a count of
 * deletes says when to load everything again).
 *
 * An equals search by fields that imply a blocking key (e-mail; last name and postal code; first
 * and last name ...) reads that key's postings and compares the fields as the destination would:
 * it answers what the destination's own search answers, without a statement per batch. A search
 * no key serves goes to the connector, as before.
 */
import { blockingKeys, type KeyedValues } from '../../src/domain/formula/blockingKeys.ts';
import { matchKey, type KeyKind } from '../../src/domain/formula/matchKeys.ts';
import type { CandidateRecords, IndexedRecord, SearchQuery, SourceRecord } from '../connectors/connector.ts';
import type { FormulaEnd } from './plan.ts';

/** Postings a key may have and still bring candidates to `block`: a common name in a big city is no evidence. */
export const BLOCK_CAP = 50;
/** Records read per statement while loading. */
const LOAD_PAGE = 20_000;
/** Indexes a process keeps loaded (the least recently used goes first). */
const KEEP_LOADED = 3;
const CHUNK_BYTES = 4 << 20;

/** 53-bit string hash (cyrb53); never 0, which marks an empty table cell. */
function hash(s: string): number {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0) || 1;
}

const grow = <T extends Int32Array | Uint8Array | Float64Array | Uint32Array>(a: T, need: number): T => {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a);
  return next;
};

/**
 * Keys to lists of slots: an open-addressing table of key hashes, each with the head of a linked
 * list of postings and their count. Two keys of one hash share a list (one in billions): the
 * comparison that follows reading a list drops what does not belong.
 */
class Postings {
  private cap = 1 << 16;
  private hashes = new Float64Array(this.cap);
  private heads = new Int32Array(this.cap).fill(-1);
  private counts = new Int32Array(this.cap);
  private used = 0;
  private slots = new Int32Array(1 << 16);
  private next = new Int32Array(1 << 16);
  private n = 0;

  private cell(h: number): number {
    const mask = this.cap - 1;
    let i = ((h % 4294967296) ^ Math.floor(h / 4294967296)) & mask;
    while (this.hashes[i] !== 0 && this.hashes[i] !== h) i = (i + 1) & mask;
    return i;
  }

  private rehash(): void {
    const [hashes, heads, counts] = [this.hashes, this.heads, this.counts];
    this.cap *= 2;
    this.hashes = new Float64Array(this.cap);
    this.heads = new Int32Array(this.cap).fill(-1);
    this.counts = new Int32Array(this.cap);
    for (let i = 0; i < hashes.length; i++) {
      if (hashes[i] === 0) continue;
      const c = this.cell(hashes[i]!);
      this.hashes[c] = hashes[i]!;
      this.heads[c] = heads[i]!;
      this.counts[c] = counts[i]!;
    }
  }

  add(key: string, slot: number): void {
    if ((this.used + 1) * 2 > this.cap) this.rehash();
    const h = hash(key);
    const c = this.cell(h);
    if (this.hashes[c] === 0) { this.hashes[c] = h; this.used++; }
    this.slots = grow(this.slots, this.n + 1);
    this.next = grow(this.next, this.n + 1);
    this.slots[this.n] = slot;
    this.next[this.n] = this.heads[c]!;
    this.heads[c] = this.n++;
    this.counts[c]!++;
  }

  /** a slot of the key left the index: its posting stays (skipped as dead), its count goes */
  drop(key: string): void {
    const c = this.cell(hash(key));
    if (this.hashes[c] !== 0 && this.counts[c]! > 0) this.counts[c]!--;
  }

  count(key: string): number {
    const c = this.cell(hash(key));
    return this.hashes[c] === 0 ? 0 : this.counts[c]!;
  }

  each(key: string, f: (slot: number) => void): void {
    const c = this.cell(hash(key));
    if (this.hashes[c] === 0) return;
    for (let p = this.heads[c]!; p !== -1; p = this.next[p]!) f(this.slots[p]!);
  }

  get bytes(): number {
    return this.cap * 16 + this.slots.length * 8;
  }
}

/** Strings by slot, UTF-8 in buffers of a few MB. */
class PackedStrings {
  private chunks: Buffer[] = [Buffer.allocUnsafe(CHUNK_BYTES)];
  private used = 0;
  private where = new Float64Array(1 << 16);
  private lengths = new Uint32Array(1 << 16);

  set(slot: number, s: string): void {
    const size = Buffer.byteLength(s);
    if (this.used + size > CHUNK_BYTES) {
      this.chunks.push(Buffer.allocUnsafe(Math.max(CHUNK_BYTES, size)));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    this.chunks[chunk]!.write(s, this.used);
    this.where = grow(this.where, slot + 1);
    this.lengths = grow(this.lengths, slot + 1);
    this.where[slot] = chunk * CHUNK_BYTES * 4 + this.used;
    this.lengths[slot] = size;
    this.used += size;
  }

  get(slot: number): string {
    const at = this.where[slot]!;
    const chunk = Math.floor(at / (CHUNK_BYTES * 4));
    const offset = at - chunk * CHUNK_BYTES * 4;
    return this.chunks[chunk]!.toString('utf8', offset, offset + this.lengths[slot]!);
  }

  get bytes(): number {
    return this.chunks.length * CHUNK_BYTES + this.where.length * 12;
  }
}

/** A slot's comparison record: [id, the fields' values in the index's order, the keyed fields' keys in theirs]. */
type Packed = [string, ...unknown[]];

const lower = (v: unknown) => (v === null || v === undefined ? '' : String(v)).toLowerCase();

export class CandidateIndex {
  private readonly postings = new Postings();
  private readonly records = new PackedStrings();
  private alive = new Uint8Array(1 << 16);
  private slots = 0;
  private live = 0;
  private dead = 0;
  /** the fields of a record, in the order the first record gave them */
  private fields: string[] | null = null;
  private fieldAt = new Map<string, number>();
  private readonly keyedFields: string[];
  /** per keyed field, each slot's key hashed (0: none): a search compares them before it reads a record */
  private keyHashes: Float64Array[];

  constructor(private readonly source: Pick<CandidateRecords, 'keyed' | 'lookupField' | 'order'>) {
    this.keyedFields = Object.keys(source.keyed);
    this.keyHashes = this.keyedFields.map(() => new Float64Array(1 << 16));
  }

  get size(): number { return this.live; }
  get deadSlots(): number { return this.dead; }
  /** bytes held outside the V8 heap */
  get bytes(): number { return this.postings.bytes + this.records.bytes + this.alive.length + this.keyHashes.reduce((sum, h) => sum + h.byteLength, 0); }

  private keysOf(rec: IndexedRecord): (string | null)[] {
    return this.keyedFields.map((field) => {
      const kind = this.source.keyed[field]!;
      return rec.keys ? rec.keys[kind] ?? null : matchKey(kind, rec.fields[field]);
    });
  }

  private blocking(packed: Packed): string[] {
    const n = this.fields!.length;
    const kv: Record<string, string | null> = {};
    this.keyedFields.forEach((field, i) => { kv[this.source.keyed[field]!] = packed[1 + n + i] as string | null; });
    const lookup = this.source.lookupField ? packed[1 + this.fieldAt.get(this.source.lookupField)!] : null;
    if (lookup !== null && lookup !== undefined && lookup !== '') kv.lookupId = lower(lookup);
    return [...blockingKeys(kv as KeyedValues), `#${packed[0]}`];
  }

  private unpack(slot: number): Packed {
    return JSON.parse(this.records.get(slot)) as Packed;
  }

  /** the slot holding a record now, or -1 */
  private slotOf(id: string): number {
    let found = -1;
    this.postings.each(`#${id}`, (slot) => { if (found === -1 && this.alive[slot] && this.unpack(slot)[0] === id) found = slot; });
    return found;
  }

  private kill(slot: number): void {
    for (const key of this.blocking(this.unpack(slot))) this.postings.drop(key);
    this.alive[slot] = 0;
    this.live--;
    this.dead++;
  }

  /** Adds a record, or replaces the one with its id (`fresh`: a record of the first load, never in the index yet). */
  put(rec: IndexedRecord, fresh = false): void {
    if (!this.fields) {
      this.fields = Object.keys(rec.fields);
      this.fields.forEach((f, i) => this.fieldAt.set(f, i));
      if (this.source.lookupField && !this.fieldAt.has(this.source.lookupField)) throw new Error(`records lack their lookup field ${this.source.lookupField}`);
    }
    const keys = this.keysOf(rec);
    const packed: Packed = [rec.id, ...this.fields.map((f) => rec.fields[f] ?? null), ...keys];
    const text = JSON.stringify(packed);
    const old = fresh ? -1 : this.slotOf(rec.id);
    if (old !== -1) {
      if (this.records.get(old) === text) return;
      this.kill(old);
    }
    const slot = this.slots++;
    this.alive = grow(this.alive, slot + 1);
    keys.forEach((key, i) => {
      this.keyHashes[i] = grow(this.keyHashes[i]!, slot + 1);
      this.keyHashes[i]![slot] = key === null ? 0 : hash(key);
    });
    this.records.set(slot, text);
    this.alive[slot] = 1;
    this.live++;
    for (const key of this.blocking(packed)) this.postings.add(key, slot);
  }

  /** A record's fields as the destination's search answers them. */
  private answer(packed: Packed): SourceRecord {
    const fields: Record<string, unknown> = {};
    this.fields!.forEach((f, i) => { fields[f] = packed[1 + i]; });
    return { id: packed[0], fields };
  }

  /**
   * Answers for the queries the index can answer exactly (equals on known fields, one of which
   * implies a blocking key); null for the others, which the destination must answer.
   */
  searchMany(queries: readonly SearchQuery[]): (SourceRecord[] | null)[] {
    return queries.map((q) => this.search(q));
  }

  private search(query: SearchQuery): SourceRecord[] | null {
    if (!this.fields || !query.criteria.length) return null;
    const n = this.fields.length;
    const kv: Record<string, string> = {};
    const tests: ((p: Packed) => boolean)[] = [];
    const hashed: [Float64Array, number][] = [];
    for (const c of query.criteria) {
      if ((c.operator ?? 'equals') !== 'equals') return null;
      const value = c.value.trim();
      if (!value) return [];
      const keyedAt = this.keyedFields.indexOf(c.field);
      if (keyedAt !== -1) {
        const kind = this.source.keyed[c.field]!;
        const key = matchKey(kind, value);
        if (key === null) return [];
        kv[kind] = key;
        hashed.push([this.keyHashes[keyedAt]!, hash(key)]);
        tests.push((p) => p[1 + n + keyedAt] === key);
        continue;
      }
      const at = this.fieldAt.get(c.field);
      if (at === undefined) return null;
      const wanted = value.toLowerCase();
      if (c.field === this.source.lookupField) kv.lookupId = wanted;
      tests.push((p) => p[1 + at] !== null && lower(p[1 + at]) === wanted);
    }
    let best: string | null = null;
    let fewest = Infinity;
    for (const key of blockingKeys(kv as KeyedValues)) {
      const count = this.postings.count(key);
      if (count < fewest) { fewest = count; best = key; }
    }
    if (best === null) return null;
    const found: Packed[] = [];
    const seen = new Set<number>();
    this.postings.each(best, (slot) => {
      if (!this.alive[slot] || seen.has(slot)) return;
      seen.add(slot);
      for (const [hashes, h] of hashed) if (hashes[slot] !== h) return;
      const p = this.unpack(slot);
      if (tests.every((t) => t(p))) found.push(p);
    });
    const at = this.source.order.map((f) => 1 + this.fieldAt.get(f)!);
    // the destination's order: its order fields (nulls last), then id
    found.sort((a, b) => {
      for (const i of at) {
        const [x, y] = [a[i] as string | null, b[i] as string | null];
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return x < y ? -1 : 1;
      }
      return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
    });
    return found.slice(0, Math.min(Math.max(query.limit ?? 25, 1), 100)).map((p) => this.answer(p));
  }

  /**
   * Records sharing a blocking key with these values (a destination field's name to its value),
   * keys with more than `cap` postings left out: the candidates a record-linkage step would score,
   * a swapped first and last name among them.
   */
  block(values: Record<string, unknown>, cap = BLOCK_CAP): SourceRecord[] {
    if (!this.fields) return [];
    const kv: Record<string, string | null> = {};
    for (const field of this.keyedFields) kv[this.source.keyed[field]!] = matchKey(this.source.keyed[field]!, values[field]);
    const lookup = this.source.lookupField ? values[this.source.lookupField] : null;
    if (lookup !== null && lookup !== undefined && String(lookup).trim()) kv.lookupId = lower(String(lookup).trim());
    const out = new Map<number, SourceRecord>();
    for (const key of blockingKeys(kv as KeyedValues)) {
      if (this.postings.count(key) > cap) continue;
      this.postings.each(key, (slot) => { if (this.alive[slot] && !out.has(slot)) out.set(slot, this.answer(this.unpack(slot))); });
    }
    return [...out.values()];
  }
}

// ------------------------------------------------------------------ loaded indexes

interface Loaded {
  index: CandidateIndex | null;
  mark: string;
  deletes: number;
  /** the load or refresh under way: one at a time */
  busy: Promise<unknown>;
}

const loaded = new Map<CandidateRecords, Loaded>();

async function load(source: CandidateRecords): Promise<{ index: CandidateIndex; mark: string; deletes: number }> {
  const { mark, deletes } = await source.mark();
  const index = new CandidateIndex(source);
  let after: string | null = null;
  for (;;) {
    const page = await source.page(after, LOAD_PAGE);
    for (const rec of page) index.put(rec, true);
    if (page.length < LOAD_PAGE) break;
    after = page.at(-1)!.id;
  }
  return { index, mark, deletes };
}

/** Brings a loaded index up to what the destination holds now. */
async function bringCurrent(source: CandidateRecords, entry: Loaded): Promise<void> {
  if (entry.index) {
    const changes = await source.changes(entry.mark);
    // deleted records cannot be followed by their modification time; a long-lived index with many replaced records is compacted the same way
    if (changes.deletes === entry.deletes && entry.index.deadSlots <= Math.max(100_000, entry.index.size)) {
      for (const rec of changes.records) entry.index.put(rec);
      entry.mark = changes.mark;
      return;
    }
    entry.index = null;
  }
  const fresh = await load(source);
  Object.assign(entry, fresh);
  const changes = await source.changes(entry.mark);
  for (const rec of changes.records) fresh.index.put(rec);
  entry.mark = changes.mark;
  entry.deletes = changes.deletes;
}

/** The destination's candidate index, current as of now; null when its connector offers none. */
export async function candidateIndexOf(end: Pick<FormulaEnd, 'connector' | 'ctx' | 'object'>): Promise<CandidateIndex | null> {
  const source = end.connector.candidateRecords?.(end.ctx, end.object);
  if (!source) return null;
  let entry = loaded.get(source);
  if (entry) loaded.delete(source);
  else entry = { index: null, mark: '', deletes: 0, busy: Promise.resolve() };
  loaded.set(source, entry);
  for (const old of [...loaded.keys()].slice(0, Math.max(0, loaded.size - KEEP_LOADED))) loaded.delete(old);
  const mine = entry.busy.catch(() => undefined).then(() => bringCurrent(source, entry));
  entry.busy = mine;
  try {
    await mine;
  } catch (err) {
    entry.index = null;
    throw err;
  }
  return entry.index;
}
