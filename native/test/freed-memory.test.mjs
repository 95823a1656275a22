// The memory a native job frees goes back to the system when the job ends (binding/freed_memory.h). The page
// networks run on the libuv pool's threads, each with its own glibc arena: without the trim, every arena kept
// the largest run it had seen, and the process grew by some 460 MB over eight runs of the text detector on a
// page, where it now ends about 60 MB above where it began.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const addon = require('../build/Release/saccade.node');
const pageAnalysisDir = join(import.meta.dirname, '..', '..', 'assets', 'models', 'page-analysis');
const RUNS = 8;
/** Above what the networks' weights and one run's outputs take; below what the arenas kept without the trim. */
const KEPT_BOUND_MB = 200;

const residentMb = () => process.memoryUsage.rss() / 2 ** 20;

test('page networks: memory a run freed is given back, not kept by the threads that ran it', { skip: process.platform !== 'linux' && 'glibc arenas (Linux)' }, async () => {
  const nets = await addon.loadPageAnalysis(pageAnalysisDir, { backend: 'cpu' });
  try {
    // A page at the detector's size, with lines of ink to find.
    const width = 1280, height = 1664;
    const page = new Uint8Array(width * height).fill(255);
    for (let y = 100; y < height - 64; y += 40) page.fill(0, y * width + 100, y * width + 1100);
    const layout = { width: 608, height: 800, pixels: page.subarray(0, 608 * 800) };
    const before = residentMb();
    for (let i = 0; i < RUNS; i++) {
      await nets.run('text_detector', [{ width, height, pixels: page }]);
      await nets.run('layout', [layout]);
    }
    const kept = residentMb() - before;
    assert.ok(kept < KEPT_BOUND_MB, `the process kept ${kept.toFixed(0)} MB after ${RUNS} runs of the page networks`);
  } finally {
    nets.close();
  }
});
