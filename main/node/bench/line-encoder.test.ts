import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultModelDir } from '../engine/native-addon';
import { encoderFlops, lineWidth, readLineModel, type V4EncoderConfig } from './line-encoder';

test('line widths follow the engine: the crop scaled to the line height, whole columns, two at least, the cap at most', () => {
  const image = { height: 48, column: 8, max_width: 1600 };
  assert.equal(lineWidth(image, 526, 22), 1152);  // 526 * 48 / 22 = 1147.6 -> 144 columns
  assert.equal(lineWidth(image, 3, 48), 16);
  assert.equal(lineWidth(image, 20000, 48), 1600);
});

test('the shipped PP-OCRv6 line encoder costs what its dense layers add up to, and grows with the line', () => {
  const line = readLineModel(defaultModelDir());
  assert.ok(line, 'the shipped model has a line encoder');
  const e = line.encoder;
  assert.equal(e.kind, 'pp_ocrv6');
  const flops = encoderFlops(e, 48, 320);
  // Every layer that multiplies a full matrix, as (positions, inputs per output, outputs): the stem at 24 x 160
  // then 12 x 80, each block's MLP at its own height, the neck's 1x1s, mixer linears and CTC head on 40 columns.
  const layers: Array<[number, number, number]> = [
    [24 * 160, 9, e.stem.mid], [24 * 160, 4 * e.stem.mid, e.stem.mid / 2], [24 * 160, 4 * e.stem.mid / 2, e.stem.mid],
    [12 * 80, 9 * 2 * e.stem.mid, e.stem.mid], [12 * 80, e.stem.mid, e.stem.out],
  ];
  let rows = 12;
  for (const b of e.blocks) {
    if (b.stride[0] === 2) rows /= 2;
    layers.push([rows * 80, b.in, b.hidden], [rows * 80, b.hidden, b.out]);
  }
  const C = e.blocks.at(-1)!.out, N = e.neck.dim, hidden = N * e.neck.mlp_ratio;
  layers.push([40, C, 2 * N], [40, N, e.num_classes]);
  for (let d = 0; d < e.neck.depth; d++) layers.push([40, N, 4 * N], [40, N, hidden], [40, hidden, N]);
  const dense = 2 * layers.reduce((s, [p, i, o]) => s + p * i * o, 0);
  // What is left (depthwise kernels, squeeze-excite, attention over 40 columns) is about 1% here.
  assert.ok(flops > dense && flops < 1.02 * dense, `total ${flops}, dense layers ${dense}`);
  // PP-OCRv6_rec_small.onnx's Conv and MatMul multiply-adds for one 1x3x48x320 input, summed by hand from
  // onnxruntime's profile of the unoptimised graph: 1,091,785,152 (2.1836 GFLOP). Ours (2.1769) leaves out only
  // conv1's two more input channels, which the engine sums into its weights for the grey line.
  assert.equal(flops + 2 * 24 * 160 * 2 * 9 * e.stem.mid, 2 * 1_091_785_152);
  const ratio = encoderFlops(e, 48, 640) / flops;
  assert.ok(ratio > 1.99 && ratio < 2.02, `640 pixels cost ${ratio} x 320`);
});

test('a PP-OCRv4 line encoder is counted layer by layer', () => {
  const v4: V4EncoderConfig = {
    stem_channels: 8,
    blocks: [{ in: 8, out: 16, kernel: 3, stride: [1, 1], se: false }, { in: 16, out: 32, kernel: 5, stride: [2, 1], se: true }],
    pool: [12, 2], neck: { reduce: 12, dim: 24, depth: 1, mlp_ratio: 2 }, num_classes: 100,
  };
  const T = 80, C = 32, R = 12, N = 24;
  const macs = 24 * 160 * 9 * 8                          // stem 3x3/2 on the grey line
    + 24 * 160 * (8 * 9 + 8 * 16)                        // block 1: depthwise, pointwise
    + 12 * 160 * (16 * 25 + 16 * 32) + 2 * 16 * 4        // block 2 at half height, with squeeze-excite
    + T * (3 * C * R + R * N)                            // neck_in 1x3, neck_up
    + T * (4 * N * N + 2 * N * 2 * N + 2 * T * N)        // one mixer block
    + T * (N * C + 3 * 2 * C * R + R * N)                // neck_back, neck_fuse 1x3, neck_out
    + T * N * 100;                                       // CTC head
  assert.equal(encoderFlops(v4, 48, 320), 2 * macs);
  assert.equal(2 * macs, 8_094_976);  // what the count gave before PP-OCRv6's was added
  assert.equal(encoderFlops({ ...v4, kind: 'pp_ocrv4' }, 48, 320), 2 * macs);
});
