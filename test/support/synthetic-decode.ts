// A constructed decode that follows common/engine-types.ts and the draft/verify protocol (docs/decisions/0002)
// exactly: a page of text regions, the page_layout the pipeline would emit, and per region the rounds and
// tokens a self-speculative engine would stream, with fixations that follow the reading position. The second
// region ends in a loop that the engine's repetition guard takes back (a round of repeats, then a retract);
// the table ends with closing tags that only its region_end carries, as a table read by cells does; the last
// region has a line whose reading was too unsure to keep, reported before the region ends as the pipeline does.
// Unit tests of the stores use it, and the renderer test replays it where the real engine is not built.
import { CHECK_BELOW } from '../../common/confidence';
import type { EngineEvent, RegionKind, RegionStats, TokenEvent, TokenSource } from '../../common/engine-types';
import type { Box, DocumentInfo, LayoutRegion, SessionEvent } from '../../common/protocol';
import { seededRandom } from './seeded-random';

export interface SyntheticRegion {
  id: string;
  kind: LayoutRegion['kind'];
  box: Box;
  lines: string[];
  /** Text no token carries, sent with region_end (a table read by cells ends with its closing tags). */
  tail?: string;
  /** Lines whose readings were dropped as unsure: not among `lines`. */
  unsure?: Array<{ box: Box; text: string; meanProb: number }>;
}

export interface SyntheticDecode {
  doc: DocumentInfo;
  regions: SyntheticRegion[];
  /** Event batches in the order the session would send them. */
  batches: SessionEvent[][];
  vocab: string[];
}

export const PAGE = { width: 1000, height: 1300 };
const LOOPING_REGION = 1;

export const SAMPLE_REGIONS: SyntheticRegion[] = [
  { id: 'p0-r0', kind: 'title', box: { x0: 80, y0: 70, x1: 920, y1: 130 }, lines: ['Quarterly Report on Reading Speed'] },
  {
    id: 'p0-r1', kind: 'text', box: { x0: 80, y0: 160, x1: 920, y1: 420 },
    lines: [
      'Self-speculative decoding drafts a block of tokens by masked',
      'diffusion and verifies it with one autoregressive forward pass.',
      'Accepted drafts cost nothing extra; a mismatch is corrected by',
      'the verifier, so the output equals plain greedy decoding while',
      'each forward commits several tokens at once on typical pages.',
    ],
  },
  {
    id: 'p0-r2', kind: 'table', box: { x0: 80, y0: 460, x1: 920, y1: 700 },
    lines: [
      '<table><thead><tr><td>Mode</td><td>Tokens/forward</td></tr></thead>',
      '<tbody><tr><td>AR</td><td>1.00</td></tr>',
      '<tr><td>Self-spec</td><td>3.41',
    ],
    tail: '</td></tr></tbody></table>',
  },
  { id: 'p0-r3', kind: 'formula', box: { x0: 250, y0: 740, x1: 750, y1: 820 }, lines: ['\\tau = \\frac{n_{tok}}{n_{fwd}}'] },
  {
    id: 'p0-r4', kind: 'text', box: { x0: 80, y0: 860, x1: 920, y1: 1060 },
    lines: [
      'Fixation keeps only the image tokens the focal layers attend',
      'to, so each step reads a small window of the page, moving the',
      'way a human reader moves along a line of printed text.',
    ],
    unsure: [{ box: { x0: 80, y0: 1024, x1: 560, y1: 1058 }, text: 'Fig. 3 ~ wave mn', meanProb: 0.58 }],
  },
];

/** Splits text into the short pieces a BPE-like vocabulary would produce. */
export function tokenize(text: string): string[] {
  return text.match(/<\/?[a-z]+>|\\[a-z]+|\s?[A-Za-z]{1,4}|\s?\d{1,3}|\s|[^\sA-Za-z\d]/g) ?? [];
}

function engineKind(kind: LayoutRegion['kind']): RegionKind {
  return kind === 'table' || kind === 'formula' ? kind : 'text';
}

/** A Gaussian blob of attention around (row, col) over the merged grid, strongest first, normalised. */
function fixationAt(grid: { rows: number; cols: number }, row: number, col: number, keep: number) {
  const cells: Array<[number, number]> = [];
  for (let r = 0; r < grid.rows; r++) {
    for (let c = 0; c < grid.cols; c++) {
      const d2 = ((r - row) / 0.8) ** 2 + ((c - col) / 1.6) ** 2;
      cells.push([r * grid.cols + c, Math.exp(-d2 / 2)]);
    }
  }
  cells.sort((a, b) => b[1] - a[1]);
  const kept = cells.slice(0, keep);
  const total = kept.reduce((s, [, w]) => s + w, 0);
  return { indices: kept.map(([i]) => i), weights: kept.map(([, w]) => w / total) };
}

/** Every DISPUTED_EVERY-th token of a text line that the decoder is sure of is one its line's own reading disputes. */
const DISPUTED_EVERY = 37;
/** The line encoder's CTC probability of a disputed token. */
export const DISPUTED_READ = Math.fround(0.3);

/**
 * The two readers' votes on a token. Text lines are read by the line model: the decoder's vote is the verifier's
 * probability and the line's own reading agrees (1), except on a few word tokens the decoder is sure of, which the
 * reading disputes: those are words to check that only the votes flag. Other regions carry no votes.
 */
function votes(kind: string, index: number, text: string, arProb: number): Pick<TokenEvent, 'decoderProb' | 'readProb'> {
  if (kind !== 'text') return { decoderProb: -1, readProb: -1 };
  const disputed = index % DISPUTED_EVERY === 5 && /\w/.test(text) && arProb >= CHECK_BELOW;
  return { decoderProb: arProb, readProb: disputed ? DISPUTED_READ : 1 };
}

/**
 * `pages` repeats the sample page (region ids p1-r0, p2-r0, ...), each page laid out and decoded in turn, as
 * the session does a PDF's; `dense` packs its text regions with their lines repeated.
 */
export function buildSyntheticDecode(options: { docId?: string; blockSize?: number; seed?: number; name?: string; pages?: number; dense?: number } = {}): SyntheticDecode {
  const docId = options.docId ?? 'synthetic-doc';
  const blockSize = options.blockSize ?? 8;
  const rand = seededRandom(options.seed ?? 7);
  const vocab = ['<pad>', '<bos>', '<eos>', '<mask>'].map(() => '');
  const ids = new Map<string, number>();
  const idOf = (piece: string) => {
    let id = ids.get(piece);
    if (id === undefined) {
      id = vocab.length;
      vocab.push(piece);
      ids.set(piece, id);
    }
    return id;
  };
  const pageCount = options.pages ?? 1;
  const doc: DocumentInfo = {
    docId, name: options.name ?? 'sample-report.png', format: 'png', pages: Array.from({ length: pageCount }, (_, index) => ({ index, ...PAGE })),
  };
  const batches: SessionEvent[][] = [];
  // `dense` sets a text region's lines that many times over, in the same box: a page set small and tight.
  const lines = (r: SyntheticRegion) => (r.kind === 'text' ? Array.from({ length: options.dense ?? 1 }, () => r.lines).flat() : r.lines);
  const regions = Array.from({ length: pageCount }, (_, page) => SAMPLE_REGIONS.map((r) => ({ ...r, id: r.id.replace(/^p0-/, `p${page}-`), lines: lines(r) }))).flat();
  let elapsedMs = 0;

  regions.forEach((region, n) => {
    const regionIndex = n % SAMPLE_REGIONS.length;
    const page = Math.floor(n / SAMPLE_REGIONS.length);
    if (regionIndex === 0) {
      const layout: LayoutRegion[] = SAMPLE_REGIONS.map((r, i) => ({ id: regions[n + i]!.id, page, kind: r.kind, box: r.box, order: i }));
      batches.push([{ type: 'page_layout', docId, page, regions: layout, textAngle: 0, lines: [] }]);
    }
    const w = region.box.x1 - region.box.x0;
    const h = region.box.y1 - region.box.y0;
    const grid = { rows: Math.max(2, Math.round(h / 16)), cols: Math.max(2, Math.round(w / 16)) };
    const text = region.lines.join('\n');
    const pieces = tokenize(text);
    // Reading position of each piece: its line and the fraction of the line before its middle.
    const positions: Array<{ row: number; col: number }> = [];
    let line = 0;
    let column = 0;
    for (const piece of pieces) {
      const lineText = region.lines[line] ?? '';
      const middle = (column + piece.length / 2) / Math.max(1, lineText.length);
      positions.push({ row: ((line + 0.5) / region.lines.length) * grid.rows - 0.5, col: middle * grid.cols - 0.5 });
      if (piece === '\n') {
        line++;
        column = 0;
      } else column += piece.length;
    }
    const keep = Math.max(4, Math.round(grid.rows * grid.cols * 0.08));
    const start: EngineEvent = { type: 'region_start', regionId: region.id, kind: engineKind(region.kind), grid, imageTokens: grid.rows * grid.cols };
    batches.push([start]);

    let committedCount = 0;
    let round = 0;
    let forwards = 0;
    let decodeMs = 0;
    let guesses: number[] = [];
    const other = (id: number) => (id === idOf('~') ? idOf('#') : idOf('~'));
    while (committedCount < pieces.length) {
      // Protocol (docs/decisions/0016): one forward verifies the guesses the previous block left and drafts
      // the next block; it commits the guesses that match, then the verifier's token (the correction at the
      // first mismatch, else its own next token); the region's end may cut the round short. The new block's
      // d_2..d_B become the next round's guesses only when every guess held.
      const k = guesses.length;
      const truth = pieces.slice(committedCount, committedCount + k + blockSize).map(idOf);
      while (truth.length < k + blockSize) truth.push(idOf('#'));
      let matched = 0;
      while (matched < k && guesses[matched] === truth[matched]) matched++;
      const count = Math.min(matched + 1, pieces.length - committedCount);
      const block = truth.slice(k, k + blockSize).map((id) => (rand() < 0.8 ? id : other(id)));
      const draft = [...guesses, ...block];
      const verify = truth.slice(0, matched + 1);
      const committed = truth.slice(0, count);
      const verifyMs = 5 + rand() * 2;
      const roundEvent: EngineEvent = {
        type: 'round', regionId: region.id, round, blockSize, drafter: 'diffusion', draft, draftConf: draft.map(() => 0.5 + rand() * 0.5),
        verify, accepted: Math.min(matched, count), committed, forwards: 1, draftMs: 0, verifyMs,
      };
      const tokens: TokenEvent[] = committed.map((id, j) => {
        const index = committedCount + j;
        const source: TokenSource = draft[j] === id ? 'accepted' : 'corrected';
        const pos = positions[index]!;
        const draftConf = source === 'accepted' ? 0.6 + rand() * 0.4 : 0.2 + rand() * 0.3;
        // 32-bit floats, as the engine computes them.
        const arProb = Math.fround(source === 'corrected' ? 0.35 + rand() * 0.3 : 0.8 + rand() * 0.2);
        return {
          type: 'token', regionId: region.id, index, id, text: vocab[id]!, round, source, draftConf, arProb,
          ...votes(region.kind, index, vocab[id]!, arProb),
          fixation: fixationAt(grid, Math.max(0, pos.row), Math.max(0, pos.col), keep),
        };
      });
      batches.push([roundEvent, ...tokens]);
      committedCount += count;
      guesses = count === k + 1 ? block.slice(1) : [];
      forwards += 1;
      decodeMs += verifyMs;
      round++;
    }
    let retractedTokens = 0;
    if (regionIndex === LOOPING_REGION) {
      const loop = Array.from({ length: 6 }, () => idOf(' again'));
      const last = positions.at(-1)!;
      batches.push([
        { type: 'round', regionId: region.id, round, blockSize, drafter: 'diffusion', draft: [...loop.slice(1), ...Array.from({ length: blockSize }, () => loop[0]!)],
          draftConf: Array.from({ length: loop.length - 1 + blockSize }, () => 0.9),
          verify: loop, accepted: loop.length - 1, committed: loop, forwards: 1, draftMs: 0, verifyMs: 5 },
        ...loop.map((id, k): TokenEvent => ({
          type: 'token', regionId: region.id, index: pieces.length + k, id, text: vocab[id]!, round, source: 'accepted',
          draftConf: 0.9, arProb: Math.fround(0.95), ...votes(region.kind, pieces.length + k, vocab[id]!, Math.fround(0.95)), fixation: fixationAt(grid, Math.max(0, last.row), Math.max(0, last.col), keep),
        })),
      ]);
      // The retract arrives a few frames later, as it can from the engine, so the editor shows the loop
      // before it is taken back (empty batches are a pause of one replay step each).
      batches.push([], [], [], [{ type: 'retract', regionId: region.id, index: pieces.length }]);
      retractedTokens = loop.length;
      forwards += 1;
      decodeMs += 5;
      round++;
    }
    const stats: RegionStats = {
      tokens: pieces.length, forwards, rounds: round, encodeMs: 12, prefillMs: 8, decodeMs, decodeShareMs: decodeMs, attentionMs: decodeMs * 0.4, visualTokenFraction: keep / (grid.rows * grid.cols), retractedTokens,
      committed: pieces.length + retractedTokens, arEstimateMs: (pieces.length + retractedTokens + 1) * 5.5,
    };
    elapsedMs += decodeMs + 20;
    const done = n + 1;
    batches.push([
      ...(region.unsure ?? []).map((u): SessionEvent => ({ type: 'unsure_line', docId, regionId: region.id, ...u })),
      { type: 'region_end', regionId: region.id, text: text + (region.tail ?? ''), stats, ...(region.tail ? { tail: region.tail } : {}) },
      { type: 'progress', docId, regionsDone: done, regionsTotal: regions.length, elapsedMs, remainingMs: (elapsedMs / done) * (regions.length - done) },
    ]);
  });
  return { doc, regions, batches, vocab };
}

/**
 * The batches as the page pipeline sends a page read a batch of lines at a time: each page's regions all
 * start first, then their rounds and tokens alternate, region by region, each region's events in their order.
 */
export function interleaveRegions(batches: SessionEvent[][]): SessionEvent[][] {
  const out: SessionEvent[][] = [];
  let page: Map<string, SessionEvent[][]> | null = null;
  const flush = () => {
    if (!page) return;
    const queues = [...page.values()];
    out.push(queues.map((q) => q.shift()!).flat());
    while (queues.some((q) => q.length > 0)) for (const q of queues) if (q.length > 0) out.push(q.shift()!);
  };
  for (const batch of batches) {
    if (batch[0]?.type === 'page_layout') {
      flush();
      out.push(batch);
      page = new Map();
      continue;
    }
    const region = batch.find((e): e is Extract<SessionEvent, { regionId: string }> => 'regionId' in e);
    if (!page || !region) continue;
    page.set(region.regionId, [...(page.get(region.regionId) ?? []), batch]);
  }
  flush();
  return out;
}
