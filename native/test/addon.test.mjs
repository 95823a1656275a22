// Loads the built addon and drives it the way main/ does: info, loadModel, streamed decode, cancel, errors.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { syntheticRegion, writeTinyCheckpoint } from './tiny-checkpoint.mjs';

const require = createRequire(import.meta.url);
const addon = require('../build/Release/saccade.node');
const modelDir = writeTinyCheckpoint('main');

const base = {
  mode: 'spec', blockSize: 4, tauC: 0.9, refineSteps: 0, temperature: 0, topP: 1, seed: 0, maxNewTokens: 24,
  fixation: { enabled: true, warmupSteps: 2, focalLayers: 1, keepRatio: 0.25 },
};

function decode(model, regions, options) {
  const events = [];
  let batches = 0;
  const job = model.decode(regions, options, (batch) => {
    batches++;
    events.push(...batch);
  });
  return { job, events, batches: () => batches };
}

test('info reports backends and run-time CPU features', () => {
  const info = addon.info();
  assert.equal(typeof info.version, 'string');
  assert.ok(info.backends.includes('cpu'));
  assert.equal(info.backend, 'cpu');
  for (const f of ['avx2', 'fma', 'f16c', 'avx512f']) assert.equal(typeof info.cpuFeatures[f], 'boolean');
  assert.ok(info.threads >= 1);
  assert.ok(info.cpuKernelSets.includes('generic') && info.cpuKernelSets.includes(info.cpuKernels));
});

test('SACCADE_CPU_KERNELS forces a kernel set; one the CPU lacks is an error, not a crash', async () => {
  const saved = process.env.SACCADE_CPU_KERNELS;
  try {
    process.env.SACCADE_CPU_KERNELS = 'generic';
    assert.equal(addon.info().cpuKernels, 'generic');
    const model = await addon.loadModel(modelDir, { threads: 1 });
    assert.equal(model.info().cpuKernels, 'generic');
    model.close();
    process.env.SACCADE_CPU_KERNELS = 'avx1024';
    assert.throws(() => addon.info(), /SACCADE_CPU_KERNELS=avx1024: this CPU runs generic/);
    await assert.rejects(addon.loadModel(modelDir, { threads: 1 }), /this CPU runs generic/);
  } finally {
    if (saved === undefined) delete process.env.SACCADE_CPU_KERNELS;
    else process.env.SACCADE_CPU_KERNELS = saved;
  }
});

test('loads a checkpoint and describes it', async () => {
  const model = await addon.loadModel(modelDir, { threads: 2 });
  const info = model.info();
  assert.equal(info.decoderLayers, 3);
  assert.equal(info.weightDtype, 'F32');
  assert.equal(info.backend, 'cpu');
  // The tokenizer as read at load: the app's token texts come from here, not from a second parse of the file.
  const vocab = model.vocabulary();
  assert.equal(vocab.length, info.vocabSize);
  assert.deepEqual([vocab[1], vocab[8], vocab[8 + 'H'.charCodeAt(0) - 32]], ['', ' ', 'H']);
  model.close();
  assert.throws(() => model.info(), /closed/);
  assert.throws(() => model.vocabulary(), /closed/);
});

test('a corrupt checkpoint rejects with one clear error', async () => {
  const dir = writeTinyCheckpoint('corrupt');
  const st = readFileSync(join(dir, 'model.safetensors'));
  writeFileSync(join(dir, 'model.safetensors'), st.subarray(0, st.length - 1000));
  await assert.rejects(addon.loadModel(dir), /model\.safetensors.*truncated or corrupt/);
  await assert.rejects(addon.loadModel('/nonexistent/model'), /cannot open/);
});

test('decode streams region, round and token events and greedy spec equals AR', async () => {
  const model = await addon.loadModel(modelDir, { threads: 2 });
  const regions = [syntheticRegion('r1', 96, 48, 1), syntheticRegion('r2', 50, 60, 2)];
  const noFix = { ...base.fixation, enabled: false };
  const arResult = await decode(model, regions, { ...base, mode: 'ar', fixation: noFix }).job.promise;
  const exact = await decode(model, regions, { ...base, blockSize: 'auto', fixation: noFix }).job.promise;
  for (let i = 0; i < regions.length; i++) {
    assert.deepEqual(exact.regions[i].tokens, arResult.regions[i].tokens);
    assert.equal(exact.regions[i].text, arResult.regions[i].text);
  }
  // With fixation on: the streamed events, at base's fixed block size (the automatic one follows measured
  // timings, and where speculation cannot pay it takes only plain AR steps).
  const spec = decode(model, regions, base);
  const specResult = await spec.job.promise;
  assert.equal(specResult.cancelled, false);
  const ev = spec.events;
  assert.deepEqual(ev.filter((e) => e.type === 'region_start').map((e) => e.regionId), ['r1', 'r2']);
  const start = ev.find((e) => e.type === 'region_start');
  assert.equal(start.imageTokens, start.grid.rows * start.grid.cols);
  const tokens = ev.filter((e) => e.type === 'token' && e.regionId === 'r1');
  assert.equal(tokens.length, specResult.regions[0].tokens.length);
  assert.deepEqual(tokens.map((t) => t.index), tokens.map((_, i) => i));
  assert.ok(tokens.every((t) => ['accepted', 'corrected'].includes(t.source)));
  const fix = tokens.filter((t) => t.fixation);
  assert.ok(fix.length > 0);
  for (const t of fix) {
    assert.equal(t.fixation.indices.length, t.fixation.weights.length);
    assert.ok(t.fixation.indices.every((i) => i >= 0 && i < start.imageTokens));
    assert.ok(Math.abs(t.fixation.weights.reduce((a, b) => a + b, 0) - 1) < 1e-4);
  }
  const rounds = ev.filter((e) => e.type === 'round');
  assert.ok(rounds.length > 0 && rounds.every((r) => r.forwards === 1));
  // A round verifies at most B - 1 guesses and drafts its block (shorter only where the token budget ends);
  // it commits the guesses that held and one verifier token.
  assert.ok(rounds.every((r) => r.blockSize >= 1 && r.blockSize <= 4));
  assert.ok(rounds.every((r) => r.draft.length - r.blockSize <= 3 && r.committed.length <= r.draft.length - r.blockSize + 1));
  const end = ev.filter((e) => e.type === 'region_end');
  assert.equal(end.length, 2);
  assert.equal(end[0].text, specResult.regions[0].text);
  assert.ok(end[0].stats.visualTokenFraction < 1);
  assert.ok(spec.batches() < ev.length, 'events arrive in batches');
  model.close();
});

test('cancel resolves early with cancelled: true', async () => {
  const model = await addon.loadModel(modelDir, { threads: 2 });
  // A region that runs 1000 tokens without reaching EOS (the repetition guard off: a random checkpoint loops,
  // and the guard would end the region within a few hundred), so only the cancel can end it early.
  const long = { ...base, mode: 'ar', repeatGuard: false };
  let region = null;
  for (let seed = 1; seed < 20 && !region; seed++) {
    const r = syntheticRegion('long', 96, 48, seed);
    const out = await model.decode([r], { ...long, maxNewTokens: 1000 }, () => {}).promise;
    if (out.regions[0].tokens.length === 1000) region = r;
  }
  assert.ok(region, 'found a long region');
  // Cancelled as soon as it starts: waiting for its first token instead would race the native thread, which
  // can finish a tiny model's 1000 tokens before a busy JavaScript thread sees the first batch.
  const job = model.decode([region], { ...long, maxNewTokens: 1000 }, () => {});
  job.cancel();
  const result = await job.promise;
  assert.equal(result.cancelled, true);
  assert.ok(result.regions.every((r) => r.tokens.length < 1000));
  model.close();
});

test('engine errors and throwing callbacks become rejections', async () => {
  const model = await addon.loadModel(modelDir, { threads: 2 });
  const bad = { ...syntheticRegion('x', 10, 10, 0), kind: 'poem' };
  await assert.rejects(model.decode([bad], base, () => {}).promise, /unknown region kind/);
  await assert.rejects(model.decode([syntheticRegion('x', 40, 40, 0)], { ...base, topP: 0 }, () => {}).promise, /topP/);
  assert.throws(() => model.decode([syntheticRegion('x', 40, 40, 0)], { ...base, mode: 'fast' }, () => {}), TypeError);
  const job = model.decode([syntheticRegion('x', 40, 40, 0)], base, () => {
    throw new Error('ui bug');
  });
  await assert.rejects(job.promise, /onEvents threw: ui bug/);
  model.close();
});

test('numbers no 32-bit integer holds, and more threads than twice the hardware has, are refused before any work', async () => {
  const refused = (opts) => assert.rejects(async () => addon.loadModel(modelDir, opts), /threads must be a whole number in 1\.\./);
  // No huge count here: a build without the check would start that many threads. 2^32 + 2 used to wrap to 2.
  for (const threads of [2 ** 32 + 2, 2 * addon.info().threads + 1, 0, 1.5, Number.NaN]) await refused({ threads });
  const model = await addon.loadModel(modelDir, { threads: 2 });
  const region = syntheticRegion('x', 40, 40, 0);
  // 2^32 + 4 used to wrap silently to a block size of 4.
  assert.throws(() => model.decode([region], { ...base, blockSize: 2 ** 32 + 4 }, () => {}), /blockSize must be a whole number within 32 bits/);
  assert.throws(() => model.decode([region], { ...base, maxNewTokens: Infinity }, () => {}), TypeError);
  assert.throws(() => model.decode([region], { ...base, seed: -1 }, () => {}), /seed must be a whole number/);
  assert.throws(() => model.decode([{ ...region, width: 2 ** 32 + 40 }], base, () => {}), /width must be a whole number/);
  assert.throws(() => model.benchmark({ repeats: 1e9 }), /benchmark repeats must be a whole number in 1\.\.1000/);
  model.close();
});

test('the pixel functions refuse images that are not what they say, and sizes no page needs, before any work', () => {
  const img = { width: 4, height: 2, data: new Uint8Array(8) };
  assert.equal(addon.resampleGray(img, 2, 1).data.length, 2);
  assert.throws(() => addon.resampleGray({ ...img, data: new Uint8Array(7) }, 2, 1), /width x height grey values/);
  assert.throws(() => addon.resampleGray({ ...img, data: new Float32Array(8) }, 2, 1), /must be a Uint8Array/);
  assert.throws(() => addon.resampleGray(img, 0, 1), /output width must be a whole number/);
  assert.throws(() => addon.resampleGray(img, 65536, 65536), /too large/);
  assert.throws(() => addon.blur3Gray(img, NaN, 0.2), /centre must be a finite number/);
  assert.throws(() => addon.blur3Gray(img, 0.9, 0.2), /blur weights must be nonnegative and sum to at most 1/);
  assert.throws(() => addon.sampleRectGray(img, { cx: 1, cy: 1, width: 2, height: 2, ux: 1, uy: Infinity }, 2, 2), /uy must be a finite number/);
  assert.throws(() => addon.sampleRectGray(img, null, 2, 2), TypeError);
});

test('benchmark measures forward cost per width', async () => {
  const model = await addon.loadModel(modelDir, { threads: 2 });
  const b = await model.benchmark({ widths: [1, 8, 33], context: 64, repeats: 1 });
  assert.deepEqual(b.widths, [1, 8, 33]);
  assert.equal(b.seconds.length, 3);
  assert.ok(b.seconds.every((s) => s > 0));
  model.close();
});

const goldenDir = process.env.SACCADE_GOLDEN_DIR ?? new URL('./golden', import.meta.url).pathname;
const goldenIndex = (() => {
  try {
    const index = JSON.parse(readFileSync(join(goldenDir, 'index.json'), 'utf8'));
    readFileSync(join(goldenDir, index.model_dir, 'config.json'));
    return index;
  } catch {
    return null;
  }
})();

test('decodes golden regions to the reference greedy tokens', { skip: goldenIndex ? false : 'no golden files' }, async () => {
  const model = await addon.loadModel(join(goldenDir, goldenIndex.model_dir), { threads: 2 });
  const regions = Object.entries(goldenIndex.regions).map(([id, e]) => ({
    id, kind: e.kind, height: e.image.shape[0], width: e.image.shape[1],
    pixels: new Uint8Array(readFileSync(join(goldenDir, e.image.file))),
  }));
  // The reference decoder has no repetition guard; parity is checked without it.
  const options = { ...base, blockSize: 'auto', maxNewTokens: goldenIndex.max_new_tokens, repeatGuard: false,
    fixation: { ...base.fixation, enabled: false } };
  const { job, events } = decode(model, regions, options);
  const result = await job.promise;
  for (const r of result.regions) assert.deepEqual(r.tokens, goldenIndex.regions[r.regionId].greedy_ar_ids, r.regionId);
  const ends = events.filter((e) => e.type === 'region_end');
  assert.deepEqual(ends.map((e) => e.text), result.regions.map((r) => r.text));
  // Each token carries the two readers' votes (the decoder's own probability, the line encoder's CTC one) where
  // the reading prior chose it, and they are the same numbers whichever mode wrote it.
  const votes = (evs) => evs.filter((e) => e.type === 'token').map((t) => [t.regionId, t.index, t.decoderProb, t.readProb]);
  const spec = votes(events);
  assert.ok(spec.filter(([id]) => id === 'text').every(([, , d, r]) => d > 0 && d <= 1 && r >= 0 && r <= 1), 'a text line has both votes');
  assert.ok(spec.every(([, , d, r]) => (d === -1) === (r === -1)));
  const ar = decode(model, regions, { ...options, mode: 'ar' });
  await ar.job.promise;
  assert.deepEqual(votes(ar.events), spec);
  if (model.info().mtpHead) {
    const mtp = await decode(model, regions, { ...options, mode: 'mtp' }).job.promise;
    for (const r of mtp.regions) assert.deepEqual(r.tokens, goldenIndex.regions[r.regionId].mtp_spec_ids, `${r.regionId} (mtp)`);
  }
  model.close();
});
