// Random damage to the sample files (bytes flipped, runs overwritten, the file cut short, a chunk repeated)
// must end in a page or a clean error, never a crash or a hang. Seeded, so a failure names a case that can
// be run again; SACCADE_FUZZ_CASES=N runs N per file instead of the few that keep the suite fast.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openPageSource } from './page-source';
import { seededRandom } from '../../../../test/support/seeded-random';

const ROOT = join(__dirname, '..', '..', '..', '..');
const SAMPLES = [
  join(ROOT, 'assets', 'samples', 'two-page-report.pdf'),
  join(ROOT, 'assets', 'samples', 'page-photo.jpg'),
  join(ROOT, 'assets', 'samples', 'scanned-page.png'),
  join(ROOT, 'test', 'fixtures', 'pages', 'two-pages.tiff'),
];
const CASES = Number(process.env.SACCADE_FUZZ_CASES ?? 6);
/** Far above what a sample takes to open and render (well under a second), far below a hang. */
const CASE_MS = 15_000;

/** Damage where the structure is (headers, tables, the PDF's trailer) more often than in pixel data. */
function mutate(bytes: Uint8Array, seed: number): Uint8Array {
  const rnd = seededRandom(seed);
  const at = () => Math.floor((rnd() < 0.6 ? Math.min(bytes.length, 4096) : bytes.length) * rnd());
  const out = Uint8Array.from(bytes);
  switch (Math.floor(rnd() * 4)) {
    case 0: {
      for (let k = 1 + Math.floor(rnd() * 8); k > 0; k--) out[at()] = Math.floor(rnd() * 256);
      // The end of a PDF (startxref, trailer) decides how it is read.
      out[bytes.length - 1 - Math.floor(rnd() * Math.min(bytes.length, 256))] = Math.floor(rnd() * 256);
      return out;
    }
    case 1: {
      const from = at();
      out.fill(rnd() < 0.5 ? 0 : 0xff, from, from + 1 + Math.floor(rnd() * 64));
      return out;
    }
    case 2:
      return out.subarray(0, Math.max(1, at()));
    default: {
      const from = at();
      const chunk = out.subarray(from, from + 1 + Math.floor(rnd() * 512));
      return new Uint8Array(Buffer.concat([out.subarray(0, from), chunk, chunk, out.subarray(from)]));
    }
  }
}

function withinTime<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer in ${CASE_MS} ms`)), CASE_MS); });
  return Promise.race([work, hang]).finally(() => clearTimeout(timer));
}

/** 'page' or 'refused': either is fine; anything else (a non-Error, a wrong-sized page) fails the test. */
async function openAndRender(bytes: Uint8Array, what: string): Promise<'page' | 'refused'> {
  const refused = (err: unknown) => {
    assert.ok(err instanceof Error && err.message.length > 0, `${what}: ${String(err)}`);
    assert.doesNotMatch(err.message, /no answer in/, err.message);
    return 'refused' as const;
  };
  let source;
  try {
    source = await withinTime(openPageSource(bytes), `${what} open`);
  } catch (err) {
    return refused(err);
  }
  try {
    const img = await withinTime(source.render(0), `${what} render`);
    assert.equal(img.data.length, img.width * img.height, what);
    assert.deepEqual([img.width, img.height], [source.pages[0]!.width, source.pages[0]!.height], what);
    return 'page';
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    return refused(err);
  } finally {
    source.close();
  }
}

test('damaged sample files open to a page or a clean error, never a crash or a hang', { timeout: 4 * CASES * CASE_MS }, async () => {
  const outcomes: Record<string, number> = { page: 0, refused: 0 };
  for (const [f, file] of SAMPLES.entries()) {
    const bytes = new Uint8Array(readFileSync(file));
    for (let c = 0; c < CASES; c++) {
      const seed = 1000 * f + c;
      outcomes[await openAndRender(mutate(bytes, seed), `${file.split('/').pop()} seed ${seed}`)]!++;
    }
  }
  // Both ends are reached: some damage is survivable, some is not.
  assert.ok(outcomes.page! > 0 && outcomes.refused! > 0, JSON.stringify(outcomes));
});
