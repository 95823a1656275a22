// The page service, as the OCRmyPDF plugin drives it: one process, the model loaded once, pages read on
// request. A request it cannot use (not JSON, a line of 600 MB, a relative path, a missing image, a PDF, an
// output that is a pipe) is answered with one error line and the next page is still read; a page image larger
// than it was read at gets its hOCR in its own pixels and resolution.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { sharp } from './inputs/image-codec';
import { addonPath } from './engine/native-addon';
import { MAX_PAGE_PIXELS } from './pipeline/source/page-source';

const ROOT = join(__dirname, '..', '..');

test('page service: pages read on request in one process, bad requests answered and survived', { skip: !existsSync(addonPath()) && 'native engine not built' }, async (t) => {
  const { writeTinyCheckpoint } = (await import(join(ROOT, 'native', 'test', 'tiny-checkpoint.mjs'))) as { writeTinyCheckpoint(name: string): string };
  const model = writeTinyCheckpoint('page-service');
  const dir = mkdtempSync(join(tmpdir(), 'saccade-page-service-'));
  const photo = join(ROOT, 'assets', 'samples', 'page-photo.jpg');
  // A page over the pixel limit, at 600 dpi: read scaled down, written back in its own pixels.
  const side = Math.ceil(Math.sqrt(MAX_PAGE_PIXELS * 1.5));
  const big = join(dir, 'big.png');
  await sharp(photo).resize(side, side, { fit: 'fill' }).withMetadata({ density: 600 }).png().toFile(big);
  writeFileSync(join(dir, 'doc.pdf'), readFileSync(join(ROOT, 'assets', 'samples', 'two-page-report.pdf')));

  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'page-service.ts'), '--model', model], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  // A failed assertion must not leave the service waiting for input, and the test with it.
  t.after(() => child.kill());
  const replies = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await replies.next()).value as string) as Record<string, unknown>;
  const ask = (request: unknown) => child.stdin!.write(`${typeof request === 'string' ? request : JSON.stringify(request)}\n`);
  const page = (id: number, image: string) => ({ id, image, hocr: join(dir, `${id}.hocr`), text: join(dir, `${id}.txt`) });

  assert.equal((await next()).ready, true);
  ask('not json');
  assert.match(String((await next()).error), /^bad request: /);
  // A 600 MB line, past the longest string V8 makes: once gathered by readline, it killed the service.
  const mb = Buffer.alloc(1 << 20, 0x20);
  for (let i = 0; i < 600; i++) if (!child.stdin!.write(mb)) await once(child.stdin!, 'drain');
  ask('');
  assert.deepEqual(await next(), { id: null, error: 'bad request: a request is at most 65536 bytes' });
  if (existsSync(`/proc/${child.pid}/status`)) {
    const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
    assert.ok(peakMb < 256, `the service's peak RSS is ${peakMb.toFixed(0)} MB`);
  }
  ask({ ...page(1, photo), image: 'page-photo.jpg' });
  assert.deepEqual(await next(), { id: null, error: 'bad request: "image" must be an absolute path' });
  ask(page(2, join(dir, 'missing.png')));
  assert.deepEqual(await next(), { id: 2, error: 'no such file' });
  ask(page(3, join(dir, 'doc.pdf')));
  assert.deepEqual(await next(), { id: 3, error: 'a page image is PNG, JPEG or TIFF, not PDF' });
  // An output that is a pipe nobody reads: its open once waited forever, and every request after it with it.
  const blank = join(dir, 'blank.png');
  await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } }).png().toFile(blank);
  const fifo = join(dir, 'fifo.hocr');
  execFileSync('mkfifo', [fifo]);
  ask({ ...page(6, blank), hocr: fifo });
  assert.deepEqual(await next(), { id: 6, error: `${fifo}: not a regular file` });
  ask(page(4, photo));
  const read = await next();
  assert.equal(read.id, 4);
  assert.equal(typeof read.words, 'number');
  const hocr = readFileSync(join(dir, '4.hocr'), 'utf8');
  const { width, height } = await sharp(photo).metadata();
  assert.match(hocr, new RegExp(`class="ocr_page" id="page_1" title="bbox 0 0 ${width} ${height}; ppageno 0"`));
  ask(page(5, big));
  assert.equal((await next()).id, 5);
  assert.match(readFileSync(join(dir, '5.hocr'), 'utf8'), new RegExp(`title="bbox 0 0 ${side} ${side}; ppageno 0; scan_res 600 600"`));
  child.stdin!.end();
  const code = await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(code, 0);
});
