// The second peer: RapidOCR (PP-OCRv6 small, a plain CTC pipeline from PyPI) in the environment
// `npm run setup:rapidocr` makes. One Python process per core, each reading one page at a time on one thread
// (rapidocr_pages.py), so that it reads a page per core as Tesseract and Saccade do in the same run.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Box } from '../../../common/protocol';
import { resourceRoot } from '../engine/native-addon';

export interface RapidLine {
  text: string;
  /** The recogniser's mean character probability over the line, 0-1. */
  score: number;
  box: Box;
  words: Array<{ text: string; box: Box }>;
}

export interface RapidPage {
  lines: RapidLine[];
  ms: number;
}

export const RAPIDOCR_PAGES_AT_ONCE = availableParallelism();
/** What scripts/setup-rapidocr.sh installs. */
export const RAPIDOCR_PIN = 'rapidocr 3.10.0 (PP-OCRv6 small), onnxruntime 1.32.0';

const venvPython = () => join(resourceRoot(), '.venv-rapidocr', 'bin', 'python');
const script = () => join(resourceRoot(), 'main', 'node', 'eval', 'rapidocr_pages.py');

const toBox = ([x0, y0, x1, y1]: number[]): Box => ({ x0: x0!, y0: y0!, x1: x1!, y1: y1! });

/** One Python process answering one page at a time, in order. */
class RapidProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void }> = [];
  private readonly ready: Promise<void>;
  private exited: Error | null = null;

  constructor() {
    this.child = spawn(venvPython(), [script()], { env: { ...process.env, OMP_NUM_THREADS: '1' } });
    this.child.stderr.resume();
    const lines = createInterface({ input: this.child.stdout });
    let started: () => void;
    let failed: (err: Error) => void;
    this.ready = new Promise((resolve, reject) => ((started = resolve), (failed = reject)));
    let isReady = false;
    lines.on('line', (line) => {
      // The first line says the models are loaded; every later one answers the oldest request.
      if (!isReady) {
        isReady = true;
        return started();
      }
      this.waiting.shift()?.resolve(line);
    });
    const stop = (err: Error) => {
      this.exited = err;
      failed(err);
      for (const w of this.waiting.splice(0)) w.reject(err);
    };
    this.child.on('error', stop);
    this.child.stdin.on('error', stop);
    this.child.on('exit', (code) => stop(new Error(`rapidocr exited with ${code}`)));
  }

  async read(image: string): Promise<RapidPage> {
    await this.ready;
    const reply = await new Promise<string>((resolve, reject) => {
      if (this.exited) return reject(this.exited);
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ image })}\n`);
    });
    const r = JSON.parse(reply) as { error?: string; ms: number; lines: Array<{ text: string; score: number; box: number[]; words: Array<{ text: string; box: number[] }> }> };
    if (r.error) throw new Error(`rapidocr failed on ${image}: ${r.error}`);
    return {
      ms: r.ms,
      lines: r.lines.map((l) => ({ text: l.text, score: l.score, box: toBox(l.box), words: l.words.map((w) => ({ text: w.text, box: toBox(w.box) })) })),
    };
  }

  close(): void {
    this.child.stdin.end();
  }
}

/** The pinned RapidOCR, or null (with the reason) where its environment has not been made. */
export function rapidocrAvailable(): string | null {
  return existsSync(venvPython()) ? null : `.venv-rapidocr is missing: run 'npm run setup:rapidocr'`;
}

/** RAPIDOCR_PAGES_AT_ONCE processes; `read` hands each page to a free one. */
export class RapidReaders {
  private readonly idle: RapidProcess[];
  private readonly queue: Array<(p: RapidProcess) => void> = [];
  private readonly all: RapidProcess[];

  constructor(count = RAPIDOCR_PAGES_AT_ONCE) {
    this.all = Array.from({ length: count }, () => new RapidProcess());
    this.idle = [...this.all];
  }

  async read(image: string): Promise<RapidPage> {
    const p = this.idle.pop() ?? (await new Promise<RapidProcess>((resolve) => this.queue.push(resolve)));
    try {
      return await p.read(image);
    } finally {
      const next = this.queue.shift();
      if (next) next(p);
      else this.idle.push(p);
    }
  }

  close(): void {
    for (const p of this.all) p.close();
  }
}
