// decodeDocument against a fake engine: what the UI sees (layout first, then one stream per layout region,
// progress with an estimate) and what the user gets (Markdown in reading order, handed over page by page).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS, type DecodeResult, type EngineEvent, type RegionInput } from '../../../../common/engine-types';
import type { SessionEvent } from '../../../../common/protocol';
import type { NativeModel } from '../../engine/native-addon';
import { decodeDocument, openDocument, PageReaders, type DecodedPage, type OpenedDocument } from '../index';

const stats = { tokens: 2, forwards: 2, rounds: 1, encodeMs: 1, prefillMs: 1, decodeMs: 1, decodeShareMs: 1, attentionMs: 1, visualTokenFraction: 1, retractedTokens: 0, committed: 2, arEstimateMs: 1 };

/** Answers every crop with "w<id>" in two tokens, delivering crops in reverse order to mimic concurrency. */
const limits: number[] = [];

function fakeModel(seen: RegionInput[][], prob: (viewId: string) => number = () => 1): NativeModel {
  return {
    info: () => ({ name: 'fake' }),
    close: () => {},
    benchmark: async () => ({ widths: [], seconds: [], context: 0 }),
    vocabulary: () => [],
    decode(regions, options, onEvents) {
      seen.push(regions);
      limits.push(options.maxNewTokens);
      let cancelled = false;
      const promise = (async (): Promise<DecodeResult> => {
        const out: DecodeResult['regions'] = [];
        for (const r of [...regions].reverse()) {
          if (cancelled) break;
          const text = r.kind === 'table' ? '<table><tr><td>t</td></tr></table>' : `w${r.id.replace(/\W/g, '')}`;
          const events: EngineEvent[] = [
            { type: 'region_start', regionId: r.id, kind: r.kind, grid: { rows: 1, cols: 2 }, imageTokens: 2 },
            { type: 'token', regionId: r.id, index: 0, id: 10, text: text.slice(0, 2), round: 0, source: 'ar', draftConf: -1, arProb: prob(r.id), decoderProb: -1, readProb: -1, fixation: null },
            { type: 'token', regionId: r.id, index: 1, id: 11, text: text.slice(2), round: 0, source: 'ar', draftConf: -1, arProb: prob(r.id), decoderProb: -1, readProb: -1, fixation: null },
            { type: 'region_end', regionId: r.id, text, stats },
          ];
          onEvents(events);
          out.push({ regionId: r.id, text, tokens: [10, 11], stats });
          await new Promise((res) => setImmediate(res));
        }
        return { regions: out, cancelled };
      })();
      return { promise, cancel: () => (cancelled = true) };
    },
  };
}

const SAMPLES = join(__dirname, '..', '..', '..', '..', 'assets', 'samples');
const SAMPLE = join(SAMPLES, 'scanned-page.png');

/** Decodes every page, keeping what a caller is handed: the events, each page, and the Markdown they add up to. */
async function decodeAll(doc: OpenedDocument, model: NativeModel, signal = new AbortController().signal, pages: number[] | null = null) {
  const events: SessionEvent[] = [];
  const handed: DecodedPage[] = [];
  const { cancelled } = await decodeDocument(doc, model, {
    options: DEFAULT_DECODE_OPTIONS, pages, emit: (e) => events.push(...e), onPage: (p) => void handed.push(p), signal,
  });
  return { events, cancelled, pages: handed, markdown: handed.map((p) => p.markdown).join(''), regions: handed.flatMap((p) => p.regions) };
}

test('layout is emitted first, then each layout region streams as one region with continuous token indices', async () => {
  const bytes = new Uint8Array(readFileSync(SAMPLE));
  const doc = await openDocument('page.png', bytes);
  const seen: RegionInput[][] = [];
  const result = await decodeAll(doc, fakeModel(seen));
  const { events } = result;
  doc.close();
  assert.equal(events[0]!.type, 'page_layout');
  const layout = events[0] as Extract<SessionEvent, { type: 'page_layout' }>;
  const ids = new Set(layout.regions.map((r) => r.id));
  const engine = events.filter((e) => e.type === 'token' || e.type === 'region_start' || e.type === 'region_end') as EngineEvent[];
  assert.ok(engine.length > 0);
  for (const e of engine) assert.ok(ids.has(e.regionId), `event for unknown region ${e.regionId}`);
  // Each region: one start, one end, token indices 0..n-1 in order even though crops finished in reverse.
  for (const id of ids) {
    const mine = engine.filter((e) => e.regionId === id);
    if (mine.length === 0) continue;
    assert.equal(mine.filter((e) => e.type === 'region_start').length, 1, id);
    assert.equal(mine.filter((e) => e.type === 'region_end').length, 1, id);
    const indices = mine.filter((e) => e.type === 'token').map((e) => (e as Extract<EngineEvent, { type: 'token' }>).index);
    assert.deepEqual(indices, indices.map((_, i) => i), id);
  }
  // Text regions were cut into line crops; all line crops of the page went to the engine in one call, with
  // a token limit far below the caller's; tables and formulas, if any, in a second call.
  assert.ok(seen.length === 1 || seen.length === 2);
  assert.ok(seen[0]!.every((r) => r.kind === 'text') && seen[0]!.length > layout.regions.filter((r) => r.kind === 'text').length);
  assert.ok(limits[0]! < DEFAULT_DECODE_OPTIONS.maxNewTokens, `line limit ${limits[0]}`);
  if (seen.length === 2) assert.ok(seen[1]!.every((r) => r.kind !== 'text') && limits[1] === DEFAULT_DECODE_OPTIONS.maxNewTokens);
  // Every text line went in its first view; the fake engine is sure of every reading, so no line was read in
  // another, and none was dropped. Token ids of a region are its crops' ids in order: two per crop.
  assert.ok(seen.flat().every((r) => r.id.endsWith('#0')));
  assert.equal(events.filter((e) => e.type === 'unsure_line').length, 0);
  assert.equal(result.regions.reduce((n, r) => n + r.tokens.length, 0), 2 * seen.flat().length);
  const progress = events.filter((e) => e.type === 'progress') as Array<Extract<SessionEvent, { type: 'progress' }>>;
  const last = progress[progress.length - 1]!;
  assert.equal(last.regionsDone, last.regionsTotal);
  assert.equal(last.remainingMs, 0);
  // Markdown holds every recognised region in reading order, headers and footers too.
  const body = layout.regions.filter((r) => r.order !== null && r.kind !== 'figure').sort((a, b) => a.order! - b.order!);
  let at = -1;
  for (const r of body) {
    const text = result.regions.find((x) => x.regionId === r.id)!.text.split('\n')[0]!;
    const pos = result.markdown.indexOf(text.startsWith('<table') ? '<table' : text, at + 1);
    assert.ok(pos > at, `region ${r.id} (${text}) out of order`);
    at = pos;
  }
});

test('lines read unsurely in their first view are read again in the second, and the surer reading kept', async () => {
  const doc = await openDocument('page.png', new Uint8Array(readFileSync(SAMPLE)));
  const seen: RegionInput[][] = [];
  // First views of odd lines at 0.6 per token (unsure), every second view at 0.9.
  const unsure = (id: string) => id.endsWith('#0') && Number(id.split('/')[1]!.split('#')[0]) % 2 === 1;
  const prob = (id: string) => (unsure(id) ? 0.6 : id.endsWith('#1') ? 0.9 : 1);
  const result = await decodeAll(doc, fakeModel(seen, prob));
  const { events } = result;
  doc.close();
  // The first readings streamed live and the replaced ones were taken back: what the editor ends up showing
  // of every region is the text its region_end reports.
  const shown = new Map<string, string[]>();
  for (const e of events) {
    if (e.type === 'token') (shown.get(e.regionId) ?? shown.set(e.regionId, []).get(e.regionId)!)[e.index] = e.text;
    if (e.type === 'retract') shown.get(e.regionId)!.length = e.index;
  }
  assert.ok(events.some((e) => e.type === 'retract'));
  const ends = events.filter((e) => e.type === 'region_end');
  assert.ok(ends.length > 0);
  for (const e of ends) assert.equal((shown.get(e.regionId) ?? []).join('') + (e.tail ?? ''), e.text, e.regionId);
  const first = seen[0]!;
  assert.ok(first.every((r) => r.id.endsWith('#0')));
  const expected = first.filter((r) => unsure(r.id)).map((r) => r.id.replace('#0', '#1'));
  assert.ok(expected.length > 0);
  assert.deepEqual(seen[1]!.map((r) => r.id).sort(), expected.sort());
  const words = new Set(result.markdown.split(/[\s<>]+/));
  for (const id of expected) {
    assert.ok(words.has(`w${id.replace(/\W/g, '')}`), `${id}'s reading is kept`);
    assert.ok(!words.has(`w${id.replace('#1', '#0').replace(/\W/g, '')}`));
  }
});

test('an abort before decoding stops the document and says it was cancelled', async () => {
  const doc = await openDocument('page.png', new Uint8Array(readFileSync(SAMPLE)));
  const controller = new AbortController();
  controller.abort();
  const result = await decodeAll(doc, fakeModel([]), controller.signal);
  doc.close();
  assert.equal(result.cancelled, true);
  assert.deepEqual(result.pages, []);
});

test('asking for a page that does not exist is an error', async () => {
  const doc = await openDocument('page.png', new Uint8Array(readFileSync(SAMPLE)));
  await assert.rejects(decodeAll(doc, fakeModel([]), undefined, [3]), /page 4 does not exist/);
  doc.close();
});

test('each page is handed over, its Markdown complete, before the next page goes to the engine; a caller that fails stops the document', async () => {
  const doc = await openDocument('report.pdf', new Uint8Array(readFileSync(join(SAMPLES, 'two-page-report.pdf'))));
  const seen: RegionInput[][] = [];
  const calls: number[] = [];
  const handed: DecodedPage[] = [];
  await decodeDocument(doc, fakeModel(seen), {
    options: DEFAULT_DECODE_OPTIONS, pages: null, emit: () => {}, signal: new AbortController().signal,
    onPage: (p) => {
      handed.push(p);
      calls.push(seen.length);
    },
  });
  assert.deepEqual(handed.map((p) => p.page), [0, 1]);
  assert.ok(calls[0]! > 0 && calls[0]! < calls[1]!, `engine calls when each page was handed over: ${calls}`);
  // Each page's regions are its own, and the second page's Markdown starts with the page break.
  for (const p of handed) assert.ok(p.regions.length > 0 && p.regions.every((r) => r.regionId.startsWith(`p${p.page}-`)), `page ${p.page}`);
  assert.match(handed[1]!.markdown, /^\n---\n\n<!-- page 2 -->\n\n/);
  // A page the caller cannot take (a full disk) ends the decode with that error, the next page unread.
  const failing: number[] = [];
  const before = seen.length;
  await assert.rejects(decodeDocument(doc, fakeModel(seen), {
    options: DEFAULT_DECODE_OPTIONS, pages: null, emit: () => {}, signal: new AbortController().signal,
    onPage: (p) => {
      failing.push(p.page);
      throw new Error('ENOSPC: no space left on device');
    },
  }), /ENOSPC/);
  assert.deepEqual(failing, [0]);
  assert.equal(seen.length - before, calls[0]);
  doc.close();
});

test('two readers read two pages at once; the pages are handed over in order, as one reader hands them over', async () => {
  const doc = await openDocument('report.pdf', new Uint8Array(readFileSync(join(SAMPLES, 'two-page-report.pdf'))));
  const alone = await decodeAll(doc, fakeModel([]));
  // The first page's first call is held until a call for the second page starts (or 5 s pass), so that the
  // fake engine, far quicker than layout, is still reading when the second page is laid out.
  let secondPage!: () => void;
  const secondStarted = new Promise<void>((resolve) => (secondPage = resolve));
  let inFlight = 0;
  let most = 0;
  const counted = (model: NativeModel): NativeModel => ({
    ...model,
    decode(regions, options, onEvents) {
      most = Math.max(most, ++inFlight);
      if (regions[0]!.id.startsWith('p1-')) secondPage();
      const held = regions[0]!.id.startsWith('p0-') ? Promise.race([secondStarted, new Promise((r) => setTimeout(r, 5_000))]) : Promise.resolve();
      const call = held.then(() => model.decode(regions, options, onEvents));
      return { cancel: () => void call.then((c) => c.cancel()), promise: call.then((c) => c.promise).finally(() => inFlight--) };
    },
  });
  const seen: RegionInput[][] = [];
  const events: SessionEvent[] = [];
  const handed: DecodedPage[] = [];
  const { cancelled } = await decodeDocument(doc, new PageReaders([counted(fakeModel(seen)), counted(fakeModel(seen))]), {
    options: DEFAULT_DECODE_OPTIONS, pages: null, emit: (e) => events.push(...e), onPage: (p) => void handed.push(p), signal: new AbortController().signal,
  });
  assert.equal(cancelled, false);
  assert.equal(most, 2, 'the second page went to the engine while the first was read');
  assert.deepEqual(handed.map((p) => p.page), [0, 1]);
  assert.equal(handed.map((p) => p.markdown).join(''), alone.markdown);
  const last = events.filter((e) => e.type === 'progress').at(-1) as Extract<SessionEvent, { type: 'progress' }>;
  assert.equal(last.regionsDone, last.regionsTotal);
  // A caller that cannot take the first page stops the document: the second page is not handed over.
  const taken: number[] = [];
  await assert.rejects(decodeDocument(doc, new PageReaders([fakeModel([]), fakeModel([])]), {
    options: DEFAULT_DECODE_OPTIONS, pages: null, emit: () => {}, signal: new AbortController().signal,
    onPage: (p) => {
      taken.push(p.page);
      throw new Error('ENOSPC: no space left on device');
    },
  }), /ENOSPC/);
  assert.deepEqual(taken, [0]);
  doc.close();
});

test('readers are lent one page at a time, in the order they were asked for', async () => {
  const [a, b] = [fakeModel([]), fakeModel([])];
  const readers = new PageReaders([a, b]);
  const first = await readers.acquire();
  const second = await readers.acquire();
  assert.notEqual(first, second);
  const order: string[] = [];
  const third = readers.acquire().then((m) => void order.push(m === second ? 'third got second' : 'third got first'));
  const fourth = readers.acquire().then((m) => void order.push(m === first ? 'fourth got first' : 'fourth got second'));
  readers.release(second);
  readers.release(first);
  await Promise.all([third, fourth]);
  assert.deepEqual(order, ['third got second', 'fourth got first']);
  assert.throws(() => new PageReaders([]), /needs an engine/);
});
