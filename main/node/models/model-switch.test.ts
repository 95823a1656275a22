// The engine switching models at a session's request, with the real addon: to the tiny GLM-OCR folder and
// back, refusals that leave the loaded model in place, the recent folders it remembers, and a model's files
// read once, at load, by the engine alone.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync, copyFileSync, cpSync, existsSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { RequestMap, RequestName } from '../../../common/protocol';
import { EngineSession } from '../engine/engine-session';
import { addonPath, resourceRoot } from '../engine/native-addon';
import { SharedEngine } from '../engine/shared-engine';
import { RecentModelFolders } from './recent-model-folders';

const noAddon = !existsSync(addonPath()) && 'native engine not built';
const GLM_TINY = resolve(resourceRoot(), 'native', 'test', 'golden', 'glm_ocr', 'tiny');

function sessionOn(engine: SharedEngine) {
  const session = new EngineSession(engine, () => undefined);
  let id = 0;
  return <N extends RequestName>(name: N, params: RequestMap[N][0]) =>
    session.handle({ kind: 'request', id: ++id, name, params }) as Promise<RequestMap[N][1]>;
}

const freshEngine = () => new SharedEngine(null, new RecentModelFolders(join(mkdtempSync(join(tmpdir(), 'saccade-config-')), 'recent-models.json')));

test('a session switches the engine to a GLM-OCR folder and back to the embedded model', { skip: noAddon }, async () => {
  const engine = freshEngine();
  const ask = sessionOn(engine);
  const first = await ask('hello', {});
  assert.equal(first.model.embedded, true);
  assert.equal(first.model.modelType, 'saccade_ocr');
  assert.match(first.model.card ?? '', /saccade-ocr-tiny|Saccade/i, 'the embedded model shows its README as its card');

  const glm = await ask('switchModel', { dir: GLM_TINY });
  assert.equal(glm.model.modelType, 'glm_ocr');
  assert.equal(glm.model.name, 'tiny');
  assert.equal(glm.model.embedded, false);
  assert.equal(glm.model.card, null, 'the tiny folder has no README.md');
  assert.ok(glm.vocab && glm.vocab.length > 0 && glm.vocab.length !== first.vocab?.length, 'the vocabulary is the GLM-OCR tokenizer\'s');
  // Every session of the engine now reads with it.
  assert.equal((await sessionOn(engine)('hello', {})).model.modelType, 'glm_ocr');
  assert.deepEqual((await ask('recentModels', {})).folders, [realpathSync(GLM_TINY)]);

  const back = await ask('switchModel', { dir: null });
  assert.equal(back.model.embedded, true);
  assert.equal((await ask('hello', {})).model.modelType, 'saccade_ocr');
  assert.deepEqual((await ask('recentModels', {})).folders, [realpathSync(GLM_TINY)], 'the embedded model is not listed');
});

test('a folder that is no model is refused in one line, and the loaded model stays', { skip: noAddon }, async () => {
  const engine = freshEngine();
  const ask = sessionOn(engine);
  await ask('switchModel', { dir: GLM_TINY });
  const root = mkdtempSync(join(tmpdir(), 'saccade-bad-model-'));
  const empty = join(root, 'empty');
  mkdirSync(empty);
  const broken = join(root, 'broken');
  mkdirSync(broken);
  writeFileSync(join(broken, 'config.json'), '{"architectures": ["Nothing"]}');
  const file = join(root, 'config.json');
  writeFileSync(file, '{}');
  const cases: Array<[string, RegExp]> = [
    ['/no/such/model/folder', /no such folder/],
    ['relative/model', /full path/],
    [file, /not a folder/],
    [empty, /no config\.json/],
    [broken, /broken: /],
  ];
  for (const [dir, reason] of cases) {
    const err = await ask('switchModel', { dir }).then(() => null, (e: Error) => e.message);
    assert.ok(err !== null, `${dir} was loaded`);
    assert.match(err, reason);
    assert.ok(!err.includes('\n'), `one line: ${err}`);
  }
  assert.equal((await ask('hello', {})).model.modelType, 'glm_ocr');
  assert.deepEqual((await ask('recentModels', {})).folders, [realpathSync(GLM_TINY)], 'refused folders are not remembered');
});

test('a switch waits for no decode: while one runs it is refused and the model stays', { skip: noAddon }, async () => {
  const engine = freshEngine();
  const ask = sessionOn(engine);
  const decoder = {};
  assert.ok(engine.claimDecoder(decoder));
  await assert.rejects(ask('switchModel', { dir: GLM_TINY }), /decode is running/);
  engine.releaseDecoder(decoder);
  assert.equal((await ask('hello', {})).model.embedded, true);
  assert.equal((await ask('switchModel', { dir: GLM_TINY })).model.modelType, 'glm_ocr');
});

test('model files that are not regular files, or larger than they can be, are refused at once; the engine stays free', { skip: noAddon, timeout: 60_000 }, async () => {
  const engine = freshEngine();
  const ask = sessionOn(engine);
  const root = mkdtempSync(join(tmpdir(), 'saccade-hostile-model-'));
  const embedded = resolve(resourceRoot(), 'assets', 'models', 'saccade-ocr-tiny');
  // A FIFO where the tokenizer should be: opening it would wait for a writer forever.
  const fifo = join(root, 'fifo');
  mkdirSync(fifo);
  copyFileSync(join(embedded, 'config.json'), join(fifo, 'config.json'));
  execFileSync('mkfifo', [join(fifo, 'tokenizer.json')]);
  await assert.rejects(ask('switchModel', { dir: fifo }), /tokenizer\.json: not a regular file/);
  // A sparse 2 GB config.json: refused by its size, not read.
  const big = join(root, 'big');
  mkdirSync(big);
  const fd = openSync(join(big, 'config.json'), 'w');
  ftruncateSync(fd, 2 ** 31);
  closeSync(fd);
  await assert.rejects(ask('switchModel', { dir: big }), /config\.json is 2147483648 bytes, more than such a file can be/);
  // A GLM-OCR folder's chat template and a weight shard were once looked for by opening them, which waits on a
  // FIFO.
  for (const name of ['chat_template.jinja', 'model-00002-of-00002.safetensors']) {
    const dir = glmCopy();
    rmSync(join(dir, name), { force: true });
    execFileSync('mkfifo', [join(dir, name)]);
    await assert.rejects(ask('switchModel', { dir }), new RegExp(`${name.replace(/\./g, '\\.')}: not a regular file`));
  }
  const after = await ask('hello', {});
  assert.equal(after.model.embedded, true, 'the loaded model stays');
});

/** A copy of the tiny GLM-OCR folder, to be spoiled. */
function glmCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'saccade-glm-copy-')), 'tiny');
  cpSync(GLM_TINY, dir, { recursive: true });
  return dir;
}

test('a tokenizer.json that names a key twice is refused at load; the loaded model and the recent list stay', { skip: noAddon }, async () => {
  const engine = freshEngine();
  const ask = sessionOn(engine);
  const before = await ask('hello', {});
  // The engine's parser took the first "added_tokens" and JSON.parse the last: the switch went through, and
  // a second reading of the file could then fail after the engine had already changed models.
  const twice = glmCopy();
  const tokenizer = readFileSync(join(twice, 'tokenizer.json'), 'utf8');
  writeFileSync(join(twice, 'tokenizer.json'), tokenizer.replace('{', '{"added_tokens": [],'));
  const err = await ask('switchModel', { dir: twice }).then(() => null, (e: Error) => e.message);
  assert.match(err ?? 'loaded', /tokenizer\.json: invalid JSON at byte \d+: duplicate key "added_tokens"$/);
  const after = await ask('hello', {});
  assert.equal(after.model.embedded, true, 'the loaded model stays');
  assert.deepEqual(after.vocab, before.vocab);
  assert.deepEqual((await ask('recentModels', {})).folders, [], 'a refused folder is not remembered');
});

test('a model\'s files are read once, at load: a tokenizer.json made a FIFO afterwards does not stop a hello', { skip: noAddon }, async () => {
  const engine = freshEngine();
  const ask = sessionOn(engine);
  const dir = glmCopy();
  const switched = await ask('switchModel', { dir });
  assert.ok(switched.vocab && switched.vocab.length > 400, 'the vocabulary comes with the switch');
  // As the engine reads it: tokens as text (\u0120t is " t"), special tokens as nothing.
  assert.ok(switched.vocab.includes(' t') && !switched.vocab.some((t) => t.includes('\u0120')));
  assert.equal(switched.vocab[440], '', '<|endoftext|> is special');
  const fifo = join(dir, 'tokenizer.json');
  rmSync(fifo);
  execFileSync('mkfifo', [fifo]);
  // A writer that gives the FIFO an empty vocabulary should anyone open it: a hello that read the file again
  // would not hang but answer with that.
  const writer = spawn('sh', ['-c', 'printf \'{"model":{"vocab":{}}}\' > "$0"', fifo], { stdio: 'ignore' });
  try {
    const hello = await ask('hello', {});
    assert.equal(hello.model.path, realpathSync(dir));
    assert.deepEqual(hello.vocab, switched.vocab);
  } finally {
    writer.kill();
  }
});
