// End to end: the CLI turns a two-page PDF and a photographed page into Markdown with the real engine (a
// small random checkpoint stands in for the trained model, so the text is noise but every stage runs; its
// readings are all unsure, so they are kept by --keep-unsure and dropped without), reports a bad file on one
// line and goes on; --json and --hocr write the streamed detail and the words with their boxes beside it.
// Bad options and outputs stop it before any work, with one line and exit status 2; Ctrl+C stops it with 130.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sharp } from './inputs/image-codec';
import { parseArgs } from './cli/cli-args';
import { readInput } from './inputs/input-file';
import { addonPath, maxThreads } from './engine/native-addon';

const ROOT = join(__dirname, '..', '..');

test('ocr CLI: PDF and photo to Markdown and JSON, bad files reported, batch goes on', { skip: !existsSync(addonPath()) && 'native engine not built' }, async () => {
  const { writeTinyCheckpoint } = (await import(join(ROOT, 'native', 'test', 'tiny-checkpoint.mjs'))) as { writeTinyCheckpoint(name: string): string };
  const model = writeTinyCheckpoint('cli-e2e');
  const out = mkdtempSync(join(tmpdir(), 'saccade-cli-'));
  const bad = join(out, 'notes.pdf');
  writeFileSync(bad, '%PDF-1.4 truncated');
  const folder = join(out, 'scans');
  mkdirSync(folder);
  const samples = join(ROOT, 'assets', 'samples');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'),
    join(samples, 'two-page-report.pdf'), bad, folder, join(samples, 'page-photo.jpg'),
    '-o', join(out, 'md'), '--json', '--hocr', '--model', model, '--max-tokens', '3', '--mode', 'ar', '--keep-unsure'], { encoding: 'utf8', cwd: ROOT });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /error: .*notes\.pdf: not a readable PDF/);
  assert.match(r.stderr, /error: .*scans: no PDF, PNG, JPEG or TIFF file in it/);
  // The failures again at the end, after the summary: what could not be listed, then the files in order.
  assert.match(r.stderr, /failed: .*scans, .*notes\.pdf\n*$/);
  assert.match(r.stderr, /3 page\(s\) from 2\/3 file\(s\) .* pages\/s, \d+ tokens kept, \d+ decoded at [\d.]+ tokens per forward, mode ar, backend cpu/);
  for (const stem of ['two-page-report', 'page-photo']) {
    assert.ok(readFileSync(join(out, 'md', `${stem}.md`), 'utf8').trim().length > 0, `${stem}.md is empty`);
    const json = JSON.parse(readFileSync(join(out, 'md', `${stem}.json`), 'utf8'));
    assert.equal(json.pages.length, stem === 'two-page-report' ? 2 : 1);
    const region = json.pages[0].regions.find((x: { tokens: unknown[] }) => x.tokens.length > 0);
    assert.ok(region, 'no region has tokens');
    assert.ok(region.box.x1 > region.box.x0 && typeof region.text === 'string');
    // hOCR: a page element per page, and every word inside its page.
    const hocr = readFileSync(join(out, 'md', `${stem}.hocr`), 'utf8');
    const pages = hocr.split('class="ocr_page"').slice(1);
    assert.equal(pages.length, json.pages.length);
    let words = 0;
    for (const page of pages) {
      const [width, height] = page.match(/title="bbox 0 0 (\d+) (\d+)/)!.slice(1).map(Number) as [number, number];
      for (const w of page.matchAll(/class="ocrx_word" [^>]*title="bbox (\d+) (\d+) (\d+) (\d+); x_wconf (\d+)"/g)) {
        const [x0, y0, x1, y1, conf] = w.slice(1).map(Number) as [number, number, number, number, number];
        assert.ok(x0 >= 0 && y0 >= 0 && x0 <= x1 && y0 <= y1 && x1 <= width && y1 <= height && conf >= 0 && conf <= 100, w[0]);
        words++;
      }
    }
    assert.ok(words > 0, `${stem}.hocr has no words`);
  }
  // Files read side by side (a page per core) give what each gives read alone.
  mkdirSync(join(out, 'alone'));
  const alone = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), join(samples, 'two-page-report.pdf'),
    '-o', join(out, 'alone', 'two-page-report.md'), '--model', model, '--max-tokens', '3', '--mode', 'ar', '--keep-unsure'], { encoding: 'utf8', cwd: ROOT });
  assert.equal(alone.status, 0, alone.stderr);
  assert.equal(readFileSync(join(out, 'alone', 'two-page-report.md'), 'utf8'), readFileSync(join(out, 'md', 'two-page-report.md'), 'utf8'));
  const strict = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), join(samples, 'page-photo.jpg'),
    '-o', join(out, 'strict'), '--json', '--model', model, '--max-tokens', '3', '--mode', 'ar'], { encoding: 'utf8', cwd: ROOT });
  assert.equal(strict.status, 0, strict.stderr);
  const dropped = JSON.parse(readFileSync(join(out, 'strict', 'page-photo.json'), 'utf8'));
  const lines = dropped.pages[0].regions.filter((x: { kind: string }) => x.kind !== 'formula' && x.kind !== 'figure');
  assert.ok(lines.length > 0);
  assert.ok(lines.every((x: { tokens: unknown[]; text: string }) => x.tokens.length === 0 && x.text.replace(/<[^>]+>/g, '') === ''));
  // What was left out is in the JSON, line by line, for the user to check.
  const unsure = lines.flatMap((x: { unsure: Array<{ box: { x0: number; x1: number }; text: string; meanProb: number }> }) => x.unsure);
  assert.ok(unsure.length >= lines.length);
  assert.ok(unsure.every((u: { box: { x0: number; x1: number }; text: string; meanProb: number }) => u.box.x1 > u.box.x0 && typeof u.text === 'string' && u.meanProb < Math.exp(-0.3)));
});

test('ocr CLI under npm run: a folder tree typed in the user\'s folder gives the same tree of outputs there; - reads standard input', { skip: !existsSync(addonPath()) && 'native engine not built' }, async () => {
  const { writeTinyCheckpoint } = (await import(join(ROOT, 'native', 'test', 'tiny-checkpoint.mjs'))) as { writeTinyCheckpoint(name: string): string };
  const model = writeTinyCheckpoint('cli-tree');
  // Where the operator typed the command; npm runs it in the project's folder and says so in INIT_CWD.
  const typedIn = mkdtempSync(join(tmpdir(), 'saccade-cli-tree-'));
  const npm = { ...process.env, INIT_CWD: typedIn, npm_package_json: join(ROOT, 'package.json') };
  const samples = join(ROOT, 'assets', 'samples');
  mkdirSync(join(typedIn, 'scans', 'reports'), { recursive: true });
  mkdirSync(join(typedIn, 'scans', 'photos', '2024'), { recursive: true });
  copyFileSync(join(samples, 'two-page-report.pdf'), join(typedIn, 'scans', 'reports', 'q3.pdf'));
  copyFileSync(join(samples, 'scanned-page.png'), join(typedIn, 'scans', 'photos', '2024', 'page'));
  writeFileSync(join(typedIn, 'scans', 'notes.txt'), 'not a scan');
  writeFileSync(join(typedIn, 'scans', 'broken.pdf'), '%PDF-1.4 truncated');
  writeFileSync(join(typedIn, 'scans', '.DS_Store'), 'hidden');
  const decode = ['--model', model, '--max-tokens', '3', '--mode', 'ar', '--keep-unsure'];
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), 'scans', '-o', 'out', '--json', ...decode], { encoding: 'utf8', cwd: ROOT, env: npm });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^skipped scans\/notes\.txt: not a PDF, PNG, JPEG or TIFF file$/m);
  assert.match(r.stderr, /^error: scans\/broken\.pdf: not a readable PDF/m);
  assert.doesNotMatch(r.stderr, /DS_Store/);
  assert.match(r.stderr, /3 page\(s\) from 2\/3 file\(s\)/);
  const written = (readdirSync(join(typedIn, 'out'), { recursive: true }) as string[]).filter((f) => /\.(md|json)$/.test(f)).sort();
  // The PNG named without an extension is taken by its content.
  assert.deepEqual(written, ['photos/2024/page.json', 'photos/2024/page.md', 'reports/q3.json', 'reports/q3.md']);
  assert.equal(JSON.parse(readFileSync(join(typedIn, 'out', 'reports', 'q3.json'), 'utf8')).pages.length, 2);
  // One document piped in reads as the same file read from the folder.
  const piped = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), '-', '-o', 'piped.md', ...decode],
    { encoding: 'utf8', cwd: ROOT, env: npm, input: readFileSync(join(samples, 'scanned-page.png')) });
  assert.equal(piped.status, 0, piped.stderr);
  // Its figure is named after the Markdown it is linked from.
  assert.equal(readFileSync(join(typedIn, 'piped.md'), 'utf8'), readFileSync(join(typedIn, 'out', 'photos', '2024', 'page.md'), 'utf8').replaceAll('](page-', '](piped-'));
  // The page's figure is in place beside its Markdown, and nothing hidden or temporary is left.
  assert.ok(existsSync(join(typedIn, 'out', 'photos', '2024', 'page-p1-figure1.png')));
  assert.ok(existsSync(join(typedIn, 'piped-p1-figure1.png')));
  const everything = [...readdirSync(typedIn, { recursive: true }) as string[]];
  assert.deepEqual(everything.filter((f) => /(^|\/)\.(?!DS_Store$)|\.tmp$|\.part/.test(f)), []);
});

test('ocr CLI options: fixation shows heatmaps without pruning unless --keep-ratio asks for it', () => {
  assert.equal(parseArgs(['a.png']).options.fixation.keepRatio, 1);
  const pruned = parseArgs(['a.png', '--keep-ratio', '0.1']).options.fixation;
  assert.deepEqual([pruned.enabled, pruned.keepRatio], [true, 0.1]);
  assert.throws(() => parseArgs(['a.png', '--keep-ratio', '0']), /--keep-ratio must be in \(0, 1\], not 0/);
  assert.equal(parseArgs(['a.png', '--no-fixation']).options.fixation.enabled, false);
});

test('ocr CLI: -- ends the options, so a file whose name starts with - can be given as it is', () => {
  assert.deepEqual(parseArgs(['--json', '--', '-scan.png', '--hocr']).files, ['-scan.png', '--hocr']);
  assert.equal(parseArgs(['--json', '--', '-scan.png']).json, true);
  assert.throws(() => parseArgs(['-scan.png']), /unknown option -scan\.png/);
  assert.throws(() => parseArgs(['--']), /usage/);
});

test('ocr CLI: a GLM-OCR folder reads with its MTP layer by default and reports each stage\'s time; spec is refused', { skip: !existsSync(addonPath()) && 'native engine not built' }, () => {
  const glm = join(ROOT, 'native', 'test', 'golden', 'glm_ocr', 'tiny');
  const page = join(ROOT, 'assets', 'samples', 'scanned-page.png');
  const cli = (...extra: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), page, '--model', glm,
    '--max-tokens', '2', '--keep-unsure', '--threads', '2', ...extra], { encoding: 'utf8', cwd: ROOT });
  const r = cli();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /1 page\(s\) from 1\/1 file\(s\) .* mode mtp, backend cpu/);
  assert.match(r.stderr, /stages: model load [\d.]+ s; over [1-9]\d* region\(s\) image encoding [\d.]+ s, prefill [\d.]+ s, decoding [\d.]+ s/);
  const spec = cli('--mode', 'spec');
  assert.equal(spec.status, 1);
  assert.match(spec.stderr, /mode spec needs a checkpoint that drafts by masked diffusion; a plain GLM-OCR folder decodes with mode ar or mtp/);
});

test('ocr CLI options: tables are read by cells unless --tables whole asks for the model\'s table mode', () => {
  assert.equal(parseArgs(['a.png']).analysis.tables, 'cells');
  assert.equal(parseArgs(['a.png', '--tables', 'whole']).analysis.tables, 'whole');
  assert.throws(() => parseArgs(['a.png', '--tables', 'rows']), /--tables must be cells or whole, not rows/);
});

test('ocr CLI options: lines are read in two views and unsure readings dropped unless asked otherwise', () => {
  const defaults = parseArgs(['a.png']).analysis;
  assert.deepEqual([defaults.lineViews.length, defaults.dropUnsure], [2, true]);
  const asked = parseArgs(['a.png', '--views', '1', '--keep-unsure']).analysis;
  assert.deepEqual([asked.lineViews.length, asked.dropUnsure], [1, false]);
  assert.throws(() => parseArgs(['a.png', '--views', '3']), /--views must be a whole number from 1 to 2, not 3/);
});

test('ocr CLI options: every number is read strictly and within its bounds', () => {
  const most = maxThreads();
  assert.equal(parseArgs(['a.png', '--threads', String(most)]).threads, most);
  assert.deepEqual([parseArgs(['a.png', '--batch', '64']).options.batchSize, parseArgs(['a.png', '--max-tokens', '1']).options.maxNewTokens], [64, 1]);
  const refused: Array<[string, string, RegExp]> = [
    // 100,000 threads once started ~20,000 and starved the machine; the rest were silently ignored.
    ['--threads', '100000', new RegExp(`--threads must be a whole number from 1 to ${most}, not 100000`)],
    ['--threads', 'lots', /--threads must be a whole number from 1 to \d+, not lots/],
    ['--threads', '-1', /--threads must be/],
    ['--threads', '0', /--threads must be/],
    ['--max-tokens', '1e3', /--max-tokens must be a whole number from 1 to 65536, not 1e3/],
    ['--max-tokens', '4294967300', /--max-tokens must be/],
    ['--batch', '65', /--batch must be a whole number from 1 to 64, not 65/],
    ['--batch', '', /--batch must be a whole number from 1 to 64, not ''/],
    ['--keep-ratio', 'NaN', /--keep-ratio must be in \(0, 1\], not NaN/],
  ];
  for (const [option, value, message] of refused) assert.throws(() => parseArgs(['a.png', option, value]), message, `${option} ${value}`);
  assert.throws(() => parseArgs(['a.png', '--threads']), /--threads needs a value/);
});

test('ocr CLI inputs: what is not a regular file, or is over 200 MB, is refused before it is read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-cli-inputs-'));
  const big = join(dir, 'big.pdf');
  writeFileSync(big, '');
  // Sparse: no data written, so the test costs no disk; reading it would still take 201 MB of memory.
  truncateSync(big, 201 * 2 ** 20);
  assert.throws(() => readInput(big), /^Error: it is 201 MB; the largest file Saccade opens is 200 MB$/);
  assert.throws(() => readInput(dir), /^Error: not a regular file$/);
  assert.throws(() => readInput('/dev/zero'), /^Error: not a regular file$/);
  assert.throws(() => readInput(join(dir, 'missing.png')), /^Error: no such file$/);
  writeFileSync(join(dir, 'small.png'), 'x');
  assert.equal(readInput(join(dir, 'small.png')).length, 1);
});

function runCli(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), ...args], { encoding: 'utf8', cwd: ROOT });
}

test('ocr CLI: a bad option or an output over an input stops it before any work, on one line, with status 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-cli-guard-'));
  const scan = join(dir, 'scan.png');
  const bytes = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#ffffff' } }).png().toBuffer();
  writeFileSync(scan, bytes);
  // A scan named by -o once became Markdown.
  const over = runCli([scan, '-o', scan]);
  assert.deepEqual([over.status, over.stdout], [2, '']);
  assert.equal(over.stderr, `${scan} is an input; the output must go elsewhere (-o names a new .md or .pdf file, or a folder)\n`);
  assert.deepEqual(readFileSync(scan), bytes);
  const threads = runCli([scan, '--threads', '100000']);
  assert.equal(threads.status, 2);
  assert.match(threads.stderr, /^--threads must be a whole number from 1 to \d+, not 100000\n$/);
});

test('ocr CLI: Ctrl+C stops a run of files, keeps what was read, and says how many files were not read', { skip: !existsSync(addonPath()) && 'native engine not built' }, async () => {
  const { writeTinyCheckpoint } = (await import(join(ROOT, 'native', 'test', 'tiny-checkpoint.mjs'))) as { writeTinyCheckpoint(name: string): string };
  const model = writeTinyCheckpoint('cli-cancel');
  const out = mkdtempSync(join(tmpdir(), 'saccade-cli-cancel-'));
  const page = readFileSync(join(ROOT, 'assets', 'samples', 'scanned-page.png'));
  const files = Array.from({ length: 40 }, (_, i) => join(out, `page-${i}.png`));
  for (const f of files) writeFileSync(f, page);
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), ...files, '-o', join(out, 'md'), '--model', model, '--max-tokens', '3'], { cwd: ROOT });
  let stderr = '';
  // The bar's first line (a tenth of the files read) is the moment to cancel: most files are still to read.
  const code = await new Promise<number | null>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/\d+ files: \d+%/.test(stderr) && !child.killed) child.kill('SIGINT');
    });
    child.on('exit', resolve);
  });
  assert.equal(code, 130, stderr);
  const m = /(\d+) page\(s\) from (\d+)\/40 file\(s\)/.exec(stderr);
  assert.ok(m, stderr);
  const read = Number(m[2]);
  assert.ok(read > 0 && read < 40, stderr);
  assert.match(stderr, new RegExp(`cancelled: ${40 - read} file\\(s\\) not read to the end`));
  assert.ok(readdirSync(join(out, 'md')).filter((f) => f.endsWith('.md')).length >= read, 'every file read has its Markdown');
});
