// The peer: Debian's Tesseract 5 command line on the same images, read back as TSV (words with boxes, block
// and line numbers) so that its text, its block order and a table made of its lines can all be scored.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { Box } from '../../../common/protocol';

interface TsvWord {
  block: number;
  par: number;
  line: number;
  box: Box;
  text: string;
  /** Tesseract's word confidence, 0-100. */
  conf: number;
}

export interface TesseractPage {
  text: string;
  /** Blocks in Tesseract's reading order. */
  blocks: Box[];
  lines: TsvWord[][];
  ms: number;
}

export function tesseractAvailable(): Promise<string | null> {
  return new Promise((resolve) => {
    const p = spawn('tesseract', ['--version']);
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', () => resolve(null));
    p.on('close', (code) => resolve(code === 0 ? (out.split('\n')[0] ?? 'tesseract') : null));
  });
}

/**
 * Tesseract's OpenMP threads on one page ran six times slower than one thread on a 2-vCPU guest (a scribe page
 * 12.4 s against 2.0 s), so each page gets one thread, and the eval reads a page per core at once
 * (TESSERACT_PAGES_AT_ONCE), as OCRmyPDF runs it.
 */
const ONE_THREAD = { ...process.env, OMP_THREAD_LIMIT: '1' };
export const TESSERACT_PAGES_AT_ONCE = availableParallelism();

/** `lang`: a traineddata Tesseract has installed (the eval gives German pages 'deu'). */
export function runTesseract(image: string, psm: number | null = null, lang = 'eng'): Promise<TesseractPage> {
  const args = [image, 'stdout', '-l', lang, ...(psm === null ? [] : ['--psm', String(psm)]), 'tsv'];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const p = spawn('tesseract', args, { env: ONE_THREAD });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`tesseract failed on ${image}: ${err.trim()}`));
      resolve({ ...parseTsv(out), ms: Date.now() - started });
    });
  });
}

export function parseTsv(tsv: string): Omit<TesseractPage, 'ms'> {
  const lines = new Map<string, TsvWord[]>();
  const blocks = new Map<number, Box>();
  for (const row of tsv.split('\n').slice(1)) {
    const f = row.split('\t');
    if (f.length < 12) continue;
    const [level, , block, par, line, , left, top, width, height, conf] = f.slice(0, 11).map(Number);
    const box = { x0: left!, y0: top!, x1: left! + width!, y1: top! + height! };
    if (level === 2) blocks.set(block!, box);
    const text = f.slice(11).join('\t').trim();
    if (level !== 5 || !text) continue;
    const key = `${block}/${par}/${line}`;
    const words = lines.get(key) ?? [];
    words.push({ block: block!, par: par!, line: line!, box, text, conf: conf! });
    lines.set(key, words);
  }
  const ordered = [...lines.values()];
  return { text: ordered.map((l) => l.map((w) => w.text).join(' ')).join('\n'), blocks: [...blocks.values()], lines: ordered };
}

/** Tesseract has no table structure: each line becomes a row, split into cells at gaps wider than a word space. */
export function linesAsTable(lines: TsvWord[][]): string {
  const rows = lines.map((words) => {
    const h = Math.max(1, ...words.map((w) => w.box.y1 - w.box.y0));
    const cells: string[][] = [];
    let prev: TsvWord | null = null;
    for (const w of words) {
      if (!prev || w.box.x0 - prev.box.x1 > 1.2 * h) cells.push([]);
      cells[cells.length - 1]!.push(w.text);
      prev = w;
    }
    return `<tr>${cells.map((c) => `<td>${c.join(' ')}</td>`).join('')}</tr>`;
  });
  return `<table><tbody>${rows.join('')}</tbody></table>`;
}
