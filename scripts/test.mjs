// `npm test`: every suite, in order: lint, typecheck, TypeScript unit tests, native tests, Python training
// tests, the OCRmyPDF plugin's tests, browser end-to-end tests. Prints one closing line "N passed, N failed"
// over all suites. First it
// checks that the system packages the suites need are installed, so a missing one is named in one line
// (with its install command) instead of failing test modules one by one; that check counts as one test.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const PYTHON = process.env.SACCADE_PYTHON ?? '/usr/bin/python3';
const only = process.argv.slice(2);
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];

function findTests(dir, pattern) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'out') return [];
    if (statSync(p).isDirectory()) return findTests(p, pattern);
    return pattern.test(name) ? [p] : [];
  });
}

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { stdio: opts.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8', ...opts });
}

function record(suite, passed, failed, skipped = 0) {
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  if (failed > 0) failures.push(suite);
  console.log(`\n== ${suite}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
}

/** A whole-step check (lint, typecheck) counts as one test. */
function step(suite, cmd, args) {
  console.log(`\n== ${suite}: ${cmd} ${args.join(' ')}`);
  const r = run(cmd, args);
  record(suite, r.status === 0 ? 1 : 0, r.status === 0 ? 0 : 1);
}

function nodeTests(suite, files, extra = []) {
  if (files.length === 0) return record(suite, 0, 0);
  mkdirSync('test-results', { recursive: true });
  const tap = `test-results/${suite}.tap`;
  console.log(`\n== ${suite}: ${files.length} file(s)`);
  const r = run(process.execPath, [...extra, '--test', '--test-concurrency=1',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files]);
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  const count = (k) => Number(new RegExp(`^# ${k} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const failed = count('fail') + (r.status !== 0 && count('fail') === 0 ? 1 : 0);
  record(suite, count('pass'), failed, count('skipped'));
}

function pythonTests() {
  const probe = run(PYTHON, ['-c', 'import torch, numpy, PIL, pytest'], { capture: true });
  if (probe.status !== 0) {
    console.error(`saccade: the training tests cannot run: ${PYTHON} lacks PyTorch, numpy, Pillow or pytest (the system-packages check above names what to install).`);
    return record('python', 0, 1);
  }
  pytestSuite('python', PYTHON, 'training/tests');
}

/** The OCRmyPDF plugin's tests, in the environment `npm run setup:ocrmypdf` makes (OCRmyPDF from PyPI). */
function ocrmypdfTests() {
  const python = '.venv-ocrmypdf/bin/python';
  if (!existsSync(python)) {
    console.error(`saccade: the OCRmyPDF plugin's tests need ${python}: run 'npm run setup:ocrmypdf'.`);
    return record('ocrmypdf', 0, 1);
  }
  pytestSuite('ocrmypdf', python, 'integrations/ocrmypdf/tests');
}

function pytestSuite(suite, python, folder) {
  console.log(`\n== ${suite}: pytest ${folder}`);
  const r = run(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', folder], { capture: true });
  process.stdout.write(r.stdout ?? '');
  const num = (k) => Number(new RegExp(`(\\d+) ${k}`).exec(r.stdout ?? '')?.[1] ?? 0);
  const failed = num('failed') + num('error') + (r.status !== 0 && num('failed') + num('error') === 0 ? 1 : 0);
  record(suite, num('passed'), failed, num('skipped'));
}

function nativeTests() {
  const binary = 'native/build/Release/saccade_tests';
  if (!existsSync(binary)) {
    console.error(`saccade: ${binary} is missing; run 'npm run build:native'.`);
    record('native-cc', 0, 1);
  } else {
    console.log(`\n== native-cc: ${binary}`);
    const r = run(binary, [], { capture: true });
    process.stdout.write(r.stdout ?? '');
    const m = /(\d+) passed, (\d+) failed/.exec(r.stdout ?? '');
    const failed = Number(m?.[2] ?? 0) + (r.status !== 0 && Number(m?.[2] ?? 0) === 0 ? 1 : 0);
    record('native-cc', Number(m?.[1] ?? 0), failed);
  }
  nodeTests('native-addon', findTests('native/test', /\.test\.mjs$/));
}

const suites = {
  lint: () => step('lint', 'npx', ['eslint', '.']),
  typecheck: () => step('typecheck', 'npx', ['tsc', '-p', 'tsconfig.json']),
  unit: () => nodeTests('unit', ['common', 'main', 'renderer', 'test/unit'].flatMap((d) => findTests(d, /\.test\.tsx?$/)),
    ['--import', 'tsx']),
  native: nativeTests,
  python: pythonTests,
  ocrmypdf: ocrmypdfTests,
  e2e: () => nodeTests('e2e', findTests('test/e2e', /\.test\.ts$/), ['--import', 'tsx']),
};

step('system-packages', process.execPath, ['scripts/check-system-packages.mjs']);
for (const [name, fn] of Object.entries(suites)) if (only.length === 0 || only.includes(name)) fn();

console.log(`\nSuites with failures: ${failures.length ? failures.join(', ') : 'none'}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
