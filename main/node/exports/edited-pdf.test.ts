// End to end with the embedded model, through the engine session as a window asks: a scanned PDF decoded, its
// text edited as a user would (a word corrected, a line typed at the end), exported as a searchable PDF and
// read back by poppler. The corrected word is in the text layer at the decoded word's place and the word the
// model read is not; the typed line is there; the scan's pages and images are as they were.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS } from '../../../common/engine-types';
import { exportEvents } from '../../../common/export-events';
import { pageBreak } from '../../../common/markdown-pages';
import type { DocumentInfo, RequestMap, RequestName, SessionEvent } from '../../../common/protocol';
import { plainWords } from './edited-words';
import { EngineSession } from '../engine/engine-session';
import { addonPath, defaultModelDir } from '../engine/native-addon';
import * as pipeline from '../pipeline';
import { RunRecorder } from '../engine/run-recorder';
import { SharedEngine } from '../engine/shared-engine';

const ROOT = join(__dirname, '..', '..', '..');
const skip = !existsSync(addonPath()) ? 'native engine not built' : !existsSync(join(defaultModelDir(), 'config.json')) && 'no embedded model';

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * The editor's text as the window's stream mirror writes it (renderer/src/editor/stream-mirror.ts): regions
 * in the order they were read, blank lines between them, a title as a heading, a page break before a later
 * page's first region.
 */
function editorText(events: readonly SessionEvent[]): string {
  const pageOf = new Map<string, { page: number; kind: string }>();
  const tokens = new Map<string, string[]>();
  for (const e of events) {
    if (e.type === 'page_layout') for (const r of e.regions) pageOf.set(r.id, { page: r.page, kind: r.kind });
    else if (e.type === 'region_start') tokens.set(e.regionId, []);
    else if (e.type === 'token') tokens.get(e.regionId)!.push(e.text);
    else if (e.type === 'retract') tokens.get(e.regionId)!.length = e.index;
  }
  let text = '';
  let page = 0;
  for (const [id, parts] of tokens) {
    if (parts.length === 0) continue;
    const region = pageOf.get(id)!;
    if (region.page !== page) text += `\n\n${pageBreak(region.page)}`;
    page = region.page;
    text += (text ? '\n\n' : '') + (region.kind === 'title' ? '# ' : '') + parts.join('');
  }
  return text;
}

interface PdfWord { text: string; box: number[] }

function pdfPages(pdf: string): Array<{ size: number[]; words: PdfWord[] }> {
  return run('pdftotext', ['-bbox', pdf, '-']).split('<page ').slice(1).map((page) => ({
    size: page.match(/width="([\d.]+)" height="([\d.]+)"/)!.slice(1).map(Number),
    words: [...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)]
      .map((m) => ({ text: m[5]!, box: m.slice(1, 5).map(Number) })),
  }));
}

test('a searchable PDF of the edited text: the corrected word where the model read the old one, a typed line kept', { skip, timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-edited-pdf-'));
  const events: SessionEvent[] = [];
  const session = new EngineSession(new SharedEngine(pipeline), (batch) => void events.push(...batch.events));
  let id = 0;
  const ask = <N extends RequestName>(name: N, params: RequestMap[N][0]) =>
    session.handle({ kind: 'request', id: ++id, name, params }) as Promise<RequestMap[N][1]>;
  try {
    const input = join(ROOT, 'assets', 'samples', 'two-page-report.pdf');
    const { doc } = await ask('openDocument', { name: 'two-page-report.pdf', bytes: readFileSync(input).toString('base64') }) as { doc: DocumentInfo };
    await ask('decode', { docId: doc.docId, pages: null, options: { ...DEFAULT_DECODE_OPTIONS, mode: 'ar' } });
    const decoded = editorText(events);
    // A word of the second page the model read once in the whole document, to correct.
    const recorder = new RunRecorder();
    recorder.record(events);
    const all = doc.pages.flatMap((p) => recorder.pageWords(p.index).flatMap((r) => r.lines.flatMap((l) => l.words.map((w) => ({ ...w, page: p.index })))));
    const target = all.find((w) => w.page === 1 && /^[A-Za-z]{5,}$/.test(w.text) && all.filter((o) => o.text === w.text).length === 1
      && decoded.split(/\s+/).filter((o) => o === w.text).length === 1)!;
    assert.ok(target, 'a word to correct');
    const edited = `${decoded.replace(new RegExp(`(?<=\\s)${target.text}(?=\\s)`), 'Zebrafish')}\n\nA line the user typed`;
    assert.notEqual(edited, decoded);

    const { bytes } = await ask('exportSearchablePdf', { docId: doc.docId, text: edited, events: exportEvents(events) });
    const out = join(dir, 'edited.pdf');
    writeFileSync(out, Buffer.from(bytes, 'base64'));

    const raw = run('pdftotext', ['-raw', out, '-']).split(/\s+/).filter(Boolean);
    assert.ok(raw.includes('Zebrafish'), 'the corrected word is in the text layer');
    assert.ok(!raw.includes(target.text), `the word the model read ("${target.text}") is not`);
    assert.ok(raw.join(' ').includes('A line the user typed'), 'the typed line is in the text layer');
    // Every other word of the edited text is there too, in its order.
    const words = edited.split('\n').flatMap((line) => plainWords(line, true)).filter((w) => /^[A-Za-z]+$/.test(w));
    let at = 0;
    for (const w of raw) if (w === words[at]) at++;
    assert.equal(at, words.length, `the edited text's words in order (stopped at "${words[at]}")`);

    // Where the model read the old word, in PDF points.
    const pages = pdfPages(out);
    assert.equal(pages.length, 2);
    const page = pages[1]!;
    const [sx, sy] = [page.size[0]! / doc.pages[1]!.width, page.size[1]! / doc.pages[1]!.height];
    const laid = page.words.find((w) => w.text === 'Zebrafish')!;
    const [cx, cy] = [(laid.box[0]! + laid.box[2]!) / 2 / sx, (laid.box[1]! + laid.box[3]!) / 2 / sy];
    const b = target.box;
    assert.ok(cx >= b.x0 - 1 && cx <= b.x1 + 1 && cy >= b.y0 - 1 && cy <= b.y1 + 1,
      `"Zebrafish" at ${cx.toFixed(0)},${cy.toFixed(0)} is not over "${target.text}" at ${JSON.stringify(b)}`);

    // The scan's images are its own, byte for byte.
    const images = (pdf: string, name: string) => {
      const into = mkdtempSync(join(dir, name));
      run('pdfimages', ['-all', pdf, join(into, 'img')]);
      return readdirSync(into).sort().map((f) => readFileSync(join(into, f)));
    };
    assert.deepEqual(images(out, 'out-'), images(input, 'in-'));
  } finally {
    session.end();
    rmSync(dir, { recursive: true, force: true });
  }
});
