// A decode's events as compact bytes, for keeping them beside the document's draft. Tokens, rounds and retracts
// (nearly all of a decode) are binary records: integers as variable-length numbers, a token's text and its
// region's id as references into one table of strings (a decode repeats a few thousand pieces), the crop a
// heatmap refers to as a reference into a table of frames. Heatmap weights and draft probabilities, which are
// only drawn and printed to two places, are 32-bit floats; so are a token's probabilities (the verifier's and
// the two readers' votes, which decide what is a word to check), which the engine computes as 32-bit floats,
// so they are kept exactly; the timings are 64-bit ones, as sent. Version 1, written before the votes were
// sent, is still read: its tokens have none (-1), and their verifier's probability is a 64-bit float. The few
// events of other kinds (layouts, region ends, progress) are JSON records, as is a token or round whose fields
// do not fit its record exactly.
//
// `heatmaps: 'peaks'` keeps of each heatmap only its strongest cell and its crop: what word boxes and the
// searchable PDF are made of, at a few bytes a token instead of a few hundred.
//
// The bytes come back from storage, which is as untrusted as the socket: decoding checks every length against
// what is left before allocating, and any fault makes the whole record set unreadable (null), never a throw.
import type { FixationFrame, RoundEvent, TokenEvent, TokenSource } from '../../../common/engine-types';
import type { SessionEvent } from '../../../common/protocol';

export type HeatmapKeeping = 'whole' | 'peaks';

export interface DecodedRun {
  docId: string;
  events: SessionEvent[];
  heatmaps: HeatmapKeeping;
}

const MAGIC = [0x53, 0x52, 0x55, 0x4e]; // "SRUN"
const VERSION = 2;
/** The version before tokens carried the readers' votes (decoderProb, readProb). */
const VERSION_WITHOUT_VOTES = 1;
const enum Tag { Json = 0, Token = 1, Round = 2, Retract = 3 }
const SOURCES: readonly TokenSource[] = ['ar', 'accepted', 'corrected', 'diffusion', 'encoder'];
const DRAFTERS: readonly RoundEvent['drafter'][] = ['diffusion', 'mtp'];
// How many fields each record has: with every field checked by type, a count that matches means none other.
const TOKEN_FIELDS = 12;
const ROUND_FIELDS = 13;
const RETRACT_FIELDS = 3;

/** Thrown when the bytes would pass the caller's budget: the encoding stops there. */
class OverBudget extends Error {}

class Writer {
  private bytes: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(private readonly budget: number) {
    this.bytes = new Uint8Array(Math.min(budget, 1 << 16));
    this.view = new DataView(this.bytes.buffer);
  }

  private room(n: number): void {
    const need = this.length + n;
    if (need > this.budget) throw new OverBudget();
    if (need <= this.bytes.length) return;
    const grown = new Uint8Array(Math.min(this.budget, Math.max(need, this.bytes.length * 2)));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(v: number): void {
    this.room(1);
    this.bytes[this.length++] = v;
  }

  /** A non-negative safe integer, seven bits a byte. */
  uint(v: number): void {
    if (v < 0x80 && this.length < this.bytes.length) {
      this.bytes[this.length++] = v;
      return;
    }
    while (v >= 0x80) {
      this.u8((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.u8(v);
  }

  f32(v: number): void {
    this.room(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
  }

  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  raw(b: Uint8Array): void {
    this.uint(b.length);
    this.room(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }

  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

class Reader {
  private at = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get left(): number {
    return this.bytes.length - this.at;
  }

  private need(n: number): void {
    if (n > this.left) throw new Error('truncated');
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.at++]!;
  }

  uint(): number {
    if (this.at < this.bytes.length && this.bytes[this.at]! < 0x80) return this.bytes[this.at++]!;
    let v = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const b = this.u8();
      v += (b & 0x7f) * scale;
      if (v > Number.MAX_SAFE_INTEGER) throw new Error('number too large');
      if (b < 0x80) return v;
    }
  }

  /** A count of items each at least `minBytes` long, checked against what is left before anything is made. */
  count(minBytes: number): number {
    const n = this.uint();
    if (n * minBytes > this.left) throw new Error('count past the end');
    return n;
  }

  f32(): number {
    this.need(4);
    const v = this.view.getFloat32(this.at, true);
    this.at += 4;
    return v;
  }

  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }

  raw(): Uint8Array {
    const n = this.count(1);
    const b = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });
const fields = (o: object) => Object.keys(o).length;
const isUint = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isNumber = (v: unknown): v is number => typeof v === 'number';

/** A table of distinct values, each written once and referred to by its place. */
class Table<T> {
  readonly items: T[] = [];
  private readonly places = new Map<string, number>();

  private readonly byItem = new Map<T, number>();

  /** `key()`: what makes two items the same, asked only for an item not met before. */
  place(item: T, key: () => string): number {
    let at = this.byItem.get(item);
    if (at !== undefined) return at;
    const k = key();
    at = this.places.get(k);
    if (at === undefined) {
      at = this.items.length;
      this.items.push(item);
      this.places.set(k, at);
    }
    this.byItem.set(item, at);
    return at;
  }
}

function frameFits(f: FixationFrame): boolean {
  return fields(f) === (f.angle === undefined ? 3 : 4) && isUint(f.rows) && isUint(f.cols) && (f.angle === undefined || isNumber(f.angle))
    && typeof f.box === 'object' && f.box !== null && fields(f.box) === 4
    && isNumber(f.box.x0) && isNumber(f.box.y0) && isNumber(f.box.x1) && isNumber(f.box.y1);
}

function tokenFits(e: TokenEvent): boolean {
  if (fields(e) !== TOKEN_FIELDS || !isUint(e.index) || !isUint(e.id) || !isUint(e.round) || !SOURCES.includes(e.source)
    || typeof e.text !== 'string' || typeof e.regionId !== 'string' || !isNumber(e.draftConf) || !isNumber(e.arProb) || !isNumber(e.decoderProb) || !isNumber(e.readProb)) return false;
  const f = e.fixation;
  return f === null || (fields(f) === (f.frame === undefined ? 2 : 3) && Array.isArray(f.indices) && Array.isArray(f.weights)
    && f.indices.length === f.weights.length && f.indices.every(isUint) && f.weights.every(isNumber)
    && (f.frame === undefined || frameFits(f.frame)));
}

function roundFits(e: RoundEvent): boolean {
  return fields(e) === ROUND_FIELDS && typeof e.regionId === 'string' && isUint(e.round) && isUint(e.blockSize) && DRAFTERS.includes(e.drafter)
    && e.draft.every(isUint) && e.draftConf.every(isNumber) && e.verify.every(isUint) && e.committed.every(isUint)
    && isUint(e.accepted) && isUint(e.forwards) && isNumber(e.draftMs) && isNumber(e.verifyMs);
}

/**
 * The events as bytes, heatmaps whole or cut to their peaks; null when they would be more than `budget`
 * bytes.
 */
export function encodeRun(docId: string, events: readonly SessionEvent[], heatmaps: HeatmapKeeping, budget: number): Uint8Array | null {
  const strings = new Table<string>();
  const frames = new Table<FixationFrame>();
  const body = new Writer(budget);
  const str = (s: string) => body.uint(strings.place(s, () => s));
  try {
    body.uint(events.length);
    for (const e of events) {
      if (e.type === 'token' && tokenFits(e)) {
        body.u8(Tag.Token);
        str(e.regionId);
        body.uint(e.index);
        body.uint(e.id);
        str(e.text);
        body.uint(e.round);
        body.u8(SOURCES.indexOf(e.source));
        body.f32(e.draftConf);
        body.f32(e.arProb);
        body.f32(e.decoderProb);
        body.f32(e.readProb);
        const f = e.fixation;
        // 0: no fixation; else 1 + the cells kept, then the frame's place + 1 (0: none).
        if (f === null) {
          body.uint(0);
          continue;
        }
        const cells = heatmaps === 'whole' ? f.indices.length : Math.min(1, f.indices.length);
        body.uint(cells + 1);
        for (let i = 0; i < cells; i++) body.uint(f.indices[i]!);
        for (let i = 0; i < cells; i++) body.f32(f.weights[i]!);
        body.uint(f.frame ? frames.place(f.frame, () => JSON.stringify(f.frame)) + 1 : 0);
      } else if (e.type === 'round' && roundFits(e)) {
        body.u8(Tag.Round);
        str(e.regionId);
        body.uint(e.round);
        body.uint(e.blockSize);
        body.u8(DRAFTERS.indexOf(e.drafter));
        for (const list of [e.draft, e.verify, e.committed]) {
          body.uint(list.length);
          for (const id of list) body.uint(id);
        }
        body.uint(e.draftConf.length);
        for (const p of e.draftConf) body.f32(p);
        body.uint(e.accepted);
        body.uint(e.forwards);
        body.f64(e.draftMs);
        body.f64(e.verifyMs);
      } else if (e.type === 'retract' && fields(e) === RETRACT_FIELDS && typeof e.regionId === 'string' && isUint(e.index)) {
        body.u8(Tag.Retract);
        str(e.regionId);
        body.uint(e.index);
      } else {
        body.u8(Tag.Json);
        body.raw(utf8.encode(JSON.stringify(e)));
      }
    }
    const head = new Writer(budget - body.length);
    MAGIC.forEach((b) => head.u8(b));
    head.u8(VERSION);
    head.u8(heatmaps === 'whole' ? 1 : 0);
    head.raw(utf8.encode(docId));
    head.uint(strings.items.length);
    for (const s of strings.items) head.raw(utf8.encode(s));
    head.uint(frames.items.length);
    for (const f of frames.items) {
      for (const v of [f.box.x0, f.box.y0, f.box.x1, f.box.y1]) head.f64(v);
      head.uint(f.rows);
      head.uint(f.cols);
      head.f64(f.angle ?? Number.NaN);
    }
    const out = new Uint8Array(head.length + body.length);
    out.set(head.done());
    out.set(body.done(), head.length);
    return out;
  } catch (err) {
    if (err instanceof OverBudget) return null;
    throw err;
  }
}

/** The events the bytes hold, or null when they are not a run this codec wrote (truncated, altered, another format). */
export function decodeRun(bytes: Uint8Array): DecodedRun | null {
  try {
    const r = new Reader(bytes);
    if (MAGIC.some((b) => r.u8() !== b)) return null;
    const version = r.u8();
    if (version !== VERSION && version !== VERSION_WITHOUT_VOTES) return null;
    const votes = version === VERSION;
    const heatmaps: HeatmapKeeping = r.u8() === 1 ? 'whole' : 'peaks';
    const docId = fromUtf8.decode(r.raw());
    const strings = Array.from({ length: r.count(1) }, () => fromUtf8.decode(r.raw()));
    const frames = Array.from({ length: r.count(42) }, (): FixationFrame => {
      const [x0, y0, x1, y1] = [r.f64(), r.f64(), r.f64(), r.f64()];
      const rows = r.uint();
      const cols = r.uint();
      const angle = r.f64();
      return { box: { x0: x0!, y0: y0!, x1: x1!, y1: y1! }, rows, cols, ...(Number.isNaN(angle) ? {} : { angle }) };
    });
    const str = () => {
      const s = strings[r.uint()];
      if (s === undefined) throw new Error('no such string');
      return s;
    };
    const ids = () => Array.from({ length: r.count(1) }, () => r.uint());
    const events = Array.from({ length: r.count(2) }, (): SessionEvent => {
      const tag = r.u8();
      if (tag === Tag.Token) {
        const regionId = str();
        const index = r.uint();
        const id = r.uint();
        const text = str();
        const round = r.uint();
        const source = SOURCES[r.u8()];
        if (!source) throw new Error('no such source');
        const draftConf = r.f32();
        const arProb = votes ? r.f32() : r.f64();
        const decoderProb = votes ? r.f32() : -1;
        const readProb = votes ? r.f32() : -1;
        const cells = r.uint();
        let fixation: TokenEvent['fixation'] = null;
        if (cells > 0) {
          const n = cells - 1;
          if (n * 5 > r.left) throw new Error('count past the end');
          const indices = new Array<number>(n);
          for (let i = 0; i < n; i++) indices[i] = r.uint();
          const weights = new Array<number>(n);
          for (let i = 0; i < n; i++) weights[i] = r.f32();
          const place = r.uint();
          const frame = place === 0 ? undefined : frames[place - 1];
          if (place > 0 && !frame) throw new Error('no such frame');
          fixation = frame ? { indices, weights, frame } : { indices, weights };
        }
        return { type: 'token', regionId, index, id, text, round, source, draftConf, arProb, decoderProb, readProb, fixation };
      }
      if (tag === Tag.Round) {
        const regionId = str();
        const round = r.uint();
        const blockSize = r.uint();
        const drafter = DRAFTERS[r.u8()];
        if (!drafter) throw new Error('no such drafter');
        const draft = ids();
        const verify = ids();
        const committed = ids();
        const draftConf = Array.from({ length: r.count(4) }, () => r.f32());
        const accepted = r.uint();
        const forwards = r.uint();
        const draftMs = r.f64();
        const verifyMs = r.f64();
        return { type: 'round', regionId, round, blockSize, drafter, draft, draftConf, verify, accepted, committed, forwards, draftMs, verifyMs };
      }
      if (tag === Tag.Retract) return { type: 'retract', regionId: str(), index: r.uint() };
      if (tag === Tag.Json) {
        const e = JSON.parse(fromUtf8.decode(r.raw())) as SessionEvent;
        return e.type === 'token' && !votes ? { ...e, decoderProb: -1, readProb: -1 } : e;
      }
      throw new Error('no such record');
    });
    return r.left === 0 ? { docId, events, heatmaps } : null;
  } catch {
    return null;
  }
}
