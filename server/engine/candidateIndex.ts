/**
 * A destination's candidate index, held by the process that runs formulas (DESIGN.md section 4b):
 * its records' blocking keys (src/domain/formula/blockingKeys.ts) in a table of typed arrays, each
 * record's match keys as hashes in a column per keyed field, and each record as a compact
 * comparison record (its fields, UTF-8 in buffers outside the V8 heap). A million CRM constituents
 * take about 280 MB (tests/bench/candidateIndex.ts prints it). Loaded once per destination and
 * database, then kept current before each use from what was written since (by any process: the
 * connector follows modification time, and a count of deletes says when to load everything again).
 *
 * An equals search by fields that imply a blocking key (e-mail; last name and postal code; first
 * and last name ...) reads that key's postings and compares the fields as the destination would:
 * it answers what the destination's own search answers, without a statement per batch. A search
 * no key serves goes to the connector, as before.
 */
import { blockingKeys, type KeyedValues } from '../../src/domain/formula/blockingKeys.ts';
import { matchKey } from '../../src/domain/formula/matchKeys.ts';
import type { CandidateRecords, IndexedRecord, SearchQuery, SourceRecord } from '../connectors/connector.ts';
import type { FormulaEnd } from './plan.ts';

/** Postings a key may have and still bring candidates to `block`: a common name in a big city is no evidence. */
export const BLOCK_CAP = 50;
/** Records read per statement while loading. */
const LOAD_PAGE = 20_000;
/** Indexes a process keeps loaded (the least recently used goes first). */
const KEEP_LOADED = 3;
const CHUNK_BYTES = 4 << 20;

/** 32-bit string hash (FNV-1a, then murmur3's finaliser); never 0, which marks an empty cell. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0 || 1;
}

type Typed = Int32Array | Uint32Array | Uint8Array | Float64Array;
/** Half again as large (or `need`): doubling left up to half of a large array unused. */
const grow = <T extends Typed>(a: T, need: number): T => {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, Math.ceil(a.length * 1.5)));
  next.set(a);
  return next;
};

/**
 * Keys to the slots that have them: an open-addressing table of 32-bit key hashes. Most keys (an
 * e-mail, a phone, an id) belong to one record, so a cell holds that slot itself; only a key shared
 * by several records gets a list (newest first) with its count of live postings. Two keys of one
 * hash share a cell (about one pair in a thousand at a million records): whoever reads a key's
 * slots compares the records, which drops what does not belong.
 */
class KeyTable {
  private cap = 1 << 16;
  private checks = new Uint32Array(this.cap);
  /** 0: no live posting; n > 0: the one slot n - 1; n < 0: the list -n - 1 */
  private heads = new Int32Array(this.cap);
  private used = 0;
  private listFirst = new Int32Array(1 << 12);
  private listCount = new Int32Array(1 << 12);
  private lists = 0;
  private nodeSlot = new Int32Array(1 << 14);
  private nodeNext = new Int32Array(1 << 14);
  private nodes = 0;

  private cell(h: number): number {
    let i = (Math.imul(h, 0x9e3779b1) >>> 0) % this.cap;
    while (this.checks[i] !== 0 && this.checks[i] !== h) i = i + 1 === this.cap ? 0 : i + 1;
    return i;
  }

  /** Into a table sized for its keys; keys with no live posting left are dropped on the way. */
  private rehash(): void {
    const [checks, heads] = [this.checks, this.heads];
    let live = 0;
    for (let i = 0; i < checks.length; i++) if (checks[i] !== 0 && heads[i] !== 0) live++;
    this.cap = Math.max(1 << 16, Math.ceil(live * 2.2));
    this.checks = new Uint32Array(this.cap);
    this.heads = new Int32Array(this.cap);
    this.used = live;
    for (let i = 0; i < checks.length; i++) {
      if (checks[i] === 0 || heads[i] === 0) continue;
      const c = this.cell(checks[i]!);
      this.checks[c] = checks[i]!;
      this.heads[c] = heads[i]!;
    }
  }

  private push(list: number, slot: number): void {
    this.nodeSlot = grow(this.nodeSlot, this.nodes + 1);
    this.nodeNext = grow(this.nodeNext, this.nodes + 1);
    this.nodeSlot[this.nodes] = slot;
    this.nodeNext[this.nodes] = this.listFirst[list]!;
    this.listFirst[list] = this.nodes++;
    this.listCount[list]!++;
  }

  add(key: string, slot: number): void {
    if ((this.used + 1) * 4 > this.cap * 3) this.rehash();
    const h = hash(key);
    const c = this.cell(h);
    if (this.checks[c] === 0) { this.checks[c] = h; this.used++; }
    const head = this.heads[c]!;
    if (head === 0) { this.heads[c] = slot + 1; return; }
    if (head < 0) { this.push(-head - 1, slot); return; }
    const list = this.lists++;
    this.listFirst = grow(this.listFirst, list + 1);
    this.listCount = grow(this.listCount, list + 1);
    this.listFirst[list] = -1;
    this.push(list, head - 1);
    this.push(list, slot);
    this.heads[c] = -list - 1;
  }

  /** A slot of the key left the index: a lone one goes; in a list its posting stays (skipped as dead) and its count goes. */
  drop(key: string, slot: number): void {
    const c = this.cell(hash(key));
    const head = this.heads[c]!;
    if (head > 0 && head - 1 === slot) this.heads[c] = 0;
    else if (head < 0 && this.listCount[-head - 1]! > 0) this.listCount[-head - 1]!--;
  }

  count(key: string): number {
    const head = this.heads[this.cell(hash(key))]!;
    return head === 0 ? 0 : head > 0 ? 1 : this.listCount[-head - 1]!;
  }

  each(key: string, f: (slot: number) => void): void {
    const head = this.heads[this.cell(hash(key))]!;
    if (head > 0) f(head - 1);
    else if (head < 0) for (let p = this.listFirst[-head - 1]!; p !== -1; p = this.nodeNext[p]!) f(this.nodeSlot[p]!);
  }

  get bytes(): number {
    return this.cap * 8 + this.listFirst.length * 8 + this.nodeSlot.length * 8;
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

// ------------------------------------------------------------------ comparison records

/** A slot's comparison record: [id, the fields' values in the index's order]. */
type Packed = [string, ...unknown[]];

const SEP = '\u0000';
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * A value as one piece of a comparison record: a tag and its text. ISO times (a CRM's created and
 * modified dates, a sixth of a record) are written in a third of the bytes; JSON for anything that
 * is not a string, or holds the separator.
 */
function piece(v: unknown): string {
  if (v === null || v === undefined) return 'n';
  if (typeof v !== 'string') return `j${JSON.stringify(v)}`;
  if (v.length === 24 && ISO_TIME.test(v)) {
    const ms = Date.parse(v);
    if (ms >= 0 && new Date(ms).toISOString() === v) return `t${ms.toString(36)}`;
  }
  return v.includes(SEP) ? `j${JSON.stringify(v)}` : `s${v}`;
}

function pieceValue(p: string): unknown {
  switch (p[0]) {
    case 'n': return null;
    case 's': return p.slice(1);
    case 't': return new Date(parseInt(p.slice(1), 36)).toISOString();
    default: return JSON.parse(p.slice(1));
  }
}

/** A record's pieces, read one by one: a search compares a few fields of many records and answers few. */
const pieces = (text: string): string[] => text.split(SEP);

/** Records a field's values are counted over before it is decided whether the field repeats. */
const DICTIONARY_SAMPLE = 10_000;
/** At most this many distinct values among the sample: the field repeats (first and last names, towns, states, countries). */
const DICTIONARY_DISTINCT = 2_000;
const DICTIONARY_MAX = 1 << 16;

/**
 * The values of fields that repeat, each stored once: a record holds a number into its field's
 * list (piece 'd'). Which fields repeat is decided from the first records; an e-mail or an id,
 * different in every record, is never listed.
 */
class Dictionaries {
  private sample: Set<string>[] | null;
  private codes: (Map<string, number> | null)[];
  private values: string[][];
  private counted = 0;

  constructor(fields: number, private readonly sampleSize: number) {
    this.sample = Array.from({ length: fields }, () => new Set());
    this.codes = Array.from({ length: fields }, () => null);
    this.values = Array.from({ length: fields }, () => []);
  }

  /** counts a record's values towards the decision, until it is made */
  observe(values: readonly unknown[]): void {
    if (!this.sample) return;
    values.forEach((v, i) => { if (typeof v === 'string' && this.sample![i]!.size <= DICTIONARY_DISTINCT) this.sample![i]!.add(v); });
    if (++this.counted < this.sampleSize) return;
    this.codes = this.sample.map((seen) => (seen.size <= DICTIONARY_DISTINCT ? new Map() : null));
    this.sample = null;
  }

  piece(field: number, v: unknown): string {
    const codes = this.codes[field];
    if (!codes || typeof v !== 'string' || v.length < 3) return piece(v);
    let code = codes.get(v);
    if (code === undefined) {
      if (codes.size >= DICTIONARY_MAX) return piece(v);
      code = this.values[field]!.push(v) - 1;
      codes.set(v, code);
    }
    return `d${code.toString(36)}`;
  }

  value(field: number, p: string): unknown {
    return p[0] === 'd' ? this.values[field]![parseInt(p.slice(1), 36)] : pieceValue(p);
  }
}

const lower = (v: unknown) => (v === null || v === undefined ? '' : String(v)).toLowerCase();
/** what a field's hash column holds for a value: its lower case hashed, 0 for none */
const foldedHash = (v: unknown) => (v === null || v === undefined ? 0 : hash(lower(v)));

export class CandidateIndex {
  private readonly keys = new KeyTable();
  private readonly records = new PackedStrings();
  private alive = new Uint8Array(1 << 16);
  private slots = 0;
  private live = 0;
  private dead = 0;
  /** the fields of a record, in the order the first record gave them */
  private fields: string[] | null = null;
  private fieldAt = new Map<string, number>();
  private readonly keyedFields: string[];
  /** per keyed field, each slot's match key hashed (0: none): a search compares them before it reads a record */
  private keyHashes: Uint32Array[];
  /** per field searched by its text, each slot's value in lower case hashed: made on the first such search */
  private readonly textHashes = new Map<number, Uint32Array>();
  private dictionaries: Dictionaries | null = null;

  /** `dictionarySample`: records counted before deciding which fields repeat */
  constructor(private readonly source: Pick<CandidateRecords, 'keyed' | 'lookupField' | 'order'>, private readonly opts: { dictionarySample?: number } = {}) {
    this.keyedFields = Object.keys(source.keyed);
    this.keyHashes = this.keyedFields.map(() => new Uint32Array(1 << 16));
  }

  get size(): number { return this.live; }
  get deadSlots(): number { return this.dead; }
  /** bytes held outside the V8 heap */
  get bytes(): number {
    const columns = [...this.keyHashes, ...this.textHashes.values()].reduce((sum, h) => sum + h.byteLength, 0);
    return this.keys.bytes + this.records.bytes + this.alive.length + columns;
  }

  private keyOf(field: string, value: unknown): string | null {
    return matchKey(this.source.keyed[field]!, value);
  }

  /** The blocking keys of a record's match keys (in keyedFields' order) and lookup id, and its id's key. */
  private blocking(id: string, keys: readonly (string | null)[], lookup: unknown): string[] {
    const kv: Record<string, string | null> = {};
    this.keyedFields.forEach((field, i) => { kv[this.source.keyed[field]!] = keys[i]!; });
    if (lookup !== null && lookup !== undefined && lookup !== '') kv.lookupId = lower(lookup);
    return [...blockingKeys(kv as KeyedValues), `#${id}`];
  }

  private lookupOf(fields: (f: string) => unknown): unknown {
    return this.source.lookupField ? fields(this.source.lookupField) : null;
  }

  /** a record as text: its id, then its fields' pieces */
  private encode(id: string, values: readonly unknown[]): string {
    return [piece(id), ...values.map((v, i) => this.dictionaries!.piece(i, v))].join(SEP);
  }

  /** the value of a record's piece `i` (0: its id, then its fields) */
  private valueAt(p: readonly string[], i: number): unknown {
    return i === 0 ? pieceValue(p[0]!) : this.dictionaries!.value(i - 1, p[i]!);
  }

  private decode(p: readonly string[]): Packed {
    return p.map((_, i) => this.valueAt(p, i)) as Packed;
  }

  private unpack(slot: number): Packed {
    return this.decode(pieces(this.records.get(slot)));
  }

  /** the slot holding a record now, or -1 */
  private slotOf(id: string): number {
    let found = -1;
    this.keys.each(`#${id}`, (slot) => { if (found === -1 && this.alive[slot] && this.unpack(slot)[0] === id) found = slot; });
    return found;
  }

  private kill(slot: number): void {
    const p = this.unpack(slot);
    const field = (f: string) => p[1 + this.fieldAt.get(f)!];
    const keys = this.keyedFields.map((f) => this.keyOf(f, field(f)));
    for (const key of this.blocking(p[0], keys, this.lookupOf(field))) this.keys.drop(key, slot);
    this.alive[slot] = 0;
    this.live--;
    this.dead++;
  }

  /** Adds a record, or replaces the one with its id (`fresh`: a record of the first load, never in the index yet). */
  put(rec: IndexedRecord, fresh = false): void {
    if (!this.fields) {
      this.fields = Object.keys(rec.fields);
      this.fields.forEach((f, i) => this.fieldAt.set(f, i));
      this.dictionaries = new Dictionaries(this.fields.length, this.opts.dictionarySample ?? DICTIONARY_SAMPLE);
      for (const f of [...this.keyedFields, ...(this.source.lookupField ? [this.source.lookupField] : [])]) {
        if (!this.fieldAt.has(f)) throw new Error(`records lack their field ${f}`);
      }
    }
    const values = this.fields.map((f) => rec.fields[f] ?? null);
    this.dictionaries!.observe(values);
    const text = this.encode(rec.id, values);
    const old = fresh ? -1 : this.slotOf(rec.id);
    if (old !== -1) {
      if (this.records.get(old) === text) return;
      this.kill(old);
    }
    // the keys the system keeps are the ones matchKey gives its fields (a kill computes them again)
    const keys = this.keyedFields.map((f) => (rec.keys ? rec.keys[this.source.keyed[f]!] ?? null : this.keyOf(f, rec.fields[f])));
    const slot = this.slots++;
    this.alive = grow(this.alive, slot + 1);
    keys.forEach((key, i) => {
      this.keyHashes[i] = grow(this.keyHashes[i]!, slot + 1);
      this.keyHashes[i]![slot] = key === null ? 0 : hash(key);
    });
    for (const [at, hashes] of this.textHashes) {
      const column = grow(hashes, slot + 1);
      column[slot] = foldedHash(values[at]);
      this.textHashes.set(at, column);
    }
    this.records.set(slot, text);
    this.alive[slot] = 1;
    this.live++;
    for (const key of this.blocking(rec.id, keys, this.lookupOf((f) => rec.fields[f]))) this.keys.add(key, slot);
  }

  /** A field's text hashes, made from every record the first time a search compares it. */
  private textHashesOf(at: number): Uint32Array {
    let column = this.textHashes.get(at);
    if (!column) {
      column = new Uint32Array(Math.max(this.slots, 1));
      for (let slot = 0; slot < this.slots; slot++) if (this.alive[slot]) column[slot] = foldedHash(this.unpack(slot)[1 + at]);
      this.textHashes.set(at, column);
    }
    return column;
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
    const kv: Record<string, string> = {};
    // a record's pieces (pieces()) to whether it meets a criterion
    const tests: ((p: string[]) => boolean)[] = [];
    // each criterion's column and hash: most records leave at a comparison of two numbers, unread
    const hashed: [Uint32Array, number][] = [];
    for (const c of query.criteria) {
      if ((c.operator ?? 'equals') !== 'equals') return null;
      const value = c.value.trim();
      if (!value) return [];
      const at = this.fieldAt.get(c.field);
      const keyedAt = this.keyedFields.indexOf(c.field);
      if (keyedAt !== -1) {
        const key = this.keyOf(c.field, value);
        if (key === null) return [];
        kv[this.source.keyed[c.field]!] = key;
        hashed.push([this.keyHashes[keyedAt]!, hash(key)]);
        // the hash said yes: the key itself says whether it is so (records of one household or name share values: each computed once)
        const keyOf = new Map<string, string | null>();
        tests.push((p) => {
          const was = p[1 + at!]!;
          let k = keyOf.get(was);
          if (k === undefined) keyOf.set(was, k = this.keyOf(c.field, this.valueAt(p, 1 + at!)));
          return k === key;
        });
        continue;
      }
      if (at === undefined) return null;
      const wanted = value.toLowerCase();
      if (c.field === this.source.lookupField) kv.lookupId = wanted;
      tests.push((p) => {
        const v = this.valueAt(p, 1 + at);
        return v !== null && lower(v) === wanted;
      });
      hashed.push([this.textHashesOf(at), hash(wanted)]);
    }
    let best: string | null = null;
    let fewest = Infinity;
    for (const key of blockingKeys(kv as KeyedValues)) {
      const count = this.keys.count(key);
      if (count < fewest) { fewest = count; best = key; }
    }
    if (best === null) return null;
    const found: string[][] = [];
    let seen: Set<number> | null = null;
    this.keys.each(best, (slot) => {
      if (!this.alive[slot]) return;
      for (const [hashes, h] of hashed) if (hashes[slot] !== h) return;
      // a slot is in a key's list once, unless two of its keys share a hash
      if (seen?.has(slot)) return;
      (seen ??= new Set()).add(slot);
      const p = pieces(this.records.get(slot));
      if (tests.every((t) => t(p))) found.push(p);
    });
    const limit = Math.min(Math.max(query.limit ?? 25, 1), 100);
    if (found.length > 1) {
      // the destination's order: its order fields (nulls last), then id; only the records answered are read whole
      const at = [...this.source.order.map((f) => 1 + this.fieldAt.get(f)!), 0];
      const sortKeys = new Map(found.map((p) => [p, at.map((i) => this.valueAt(p, i) as string | null)]));
      found.sort((a, b) => {
        const [ka, kb] = [sortKeys.get(a)!, sortKeys.get(b)!];
        for (let i = 0; i < ka.length; i++) {
          const [x, y] = [ka[i]!, kb[i]!];
          if (x === y) continue;
          if (x === null) return 1;
          if (y === null) return -1;
          return x < y ? -1 : 1;
        }
        return 0;
      });
    }
    return found.slice(0, limit).map((p) => this.answer(this.decode(p)));
  }

  /**
   * Records sharing a blocking key with these values (a destination field's name to its value),
   * keys with more than `cap` postings left out: the candidates a record-linkage step would score,
   * a swapped first and last name among them.
   */
  block(values: Record<string, unknown>, cap = BLOCK_CAP): SourceRecord[] {
    if (!this.fields) return [];
    const kv: Record<string, string | null> = {};
    for (const field of this.keyedFields) kv[this.source.keyed[field]!] = this.keyOf(field, values[field]);
    const lookup = this.source.lookupField ? values[this.source.lookupField] : null;
    if (lookup !== null && lookup !== undefined && String(lookup).trim()) kv.lookupId = lower(String(lookup).trim());
    const out = new Map<number, Packed>();
    for (const key of blockingKeys(kv as KeyedValues)) {
      if (this.keys.count(key) > cap) continue;
      this.keys.each(key, (slot) => { if (this.alive[slot] && !out.has(slot)) out.set(slot, this.unpack(slot)); });
    }
    // a key that shares its cell with another one brings that one's records too: only records that have one of the keys stay
    const wanted = new Set(blockingKeys(kv as KeyedValues));
    return [...out.values()].filter((p) => {
      const field = (f: string) => p[1 + this.fieldAt.get(f)!];
      return this.blocking(p[0], this.keyedFields.map((f) => this.keyOf(f, field(f))), this.lookupOf(field)).some((k) => wanted.has(k));
    }).map((p) => this.answer(p));
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
