// End to end: `npm run eval` over a one-page development folder, with the real engine on a small random
// checkpoint, reports the page under "items" with each system's own figure, consistent with the pooled keys.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { addonPath } from './engine/native-addon';

const ROOT = join(__dirname, '..', '..');

test('eval: every page is reported with its own score beside the pooled figures', { skip: !existsSync(addonPath()) && 'native engine not built' }, async () => {
  const { writeTinyCheckpoint } = (await import(join(ROOT, 'native', 'test', 'tiny-checkpoint.mjs'))) as { writeTinyCheckpoint(name: string): string };
  const model = writeTinyCheckpoint('eval-e2e');
  const data = mkdtempSync(join(tmpdir(), 'saccade-eval-'));
  mkdirSync(join(data, 'scribe-sample', 'images'), { recursive: true });
  mkdirSync(join(data, 'scribe-sample', 'gt_txt'));
  copyFileSync(join(ROOT, 'assets', 'samples', 'page-photo.jpg'), join(data, 'scribe-sample', 'images', 'page-photo.jpg'));
  writeFileSync(join(data, 'scribe-sample', 'gt_txt', 'page-photo.txt'), 'SECTION II Definitions\nRemarks Share Code Due Total Description\n');
  const json = join(data, 'report.json');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'eval.ts'),
    '--data', data, '--json', json, '--model', model, '--max-tokens', '3', '--mode', 'ar'], { encoding: 'utf8', cwd: ROOT });
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  assert.deepEqual(report.meta.items, { scribe: 1 });
  assert.equal(report.items.length, 1);
  const [page] = report.items;
  assert.deepEqual([page.dataset, page.name, page.ours.metric], ['scribe', 'page-photo', 'word_f1']);
  assert.ok(page.ours.ms > 0);
  assert.equal(page.ours.value, report['ours.scribe.word_f1'], 'one page: its score is the pooled one');
  if (report.meta.tesseract) {
    assert.equal(page.tesseract.value, report['tesseract.scribe.word_f1']);
    assert.ok(page.tesseract.value > 0.3, `Tesseract read too little of the sample page: ${page.tesseract.value}`);
  }
  rmSync(data, { recursive: true });
});

test('eval: a bad number or mode stops it before any work, on one line, with status 2', () => {
  for (const [args, message] of [[['--batch', '0'], /^eval: --batch must be a whole number from 1 to 64, not 0\n$/], [['--mode', 'fast'], /^eval: --mode must be one of/]] as const) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'eval.ts'), ...args], { encoding: 'utf8', cwd: ROOT });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
  }
});
