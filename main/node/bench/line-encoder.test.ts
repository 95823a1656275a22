import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultModelDir } from '../engine/native-addon';
import { encoderFlops, lineWidth, readLineModel } from './line-encoder';

test('line widths follow the engine: the crop scaled to the line height, whole columns, two at least, the cap at most', () => {
  const image = { height: 48, column: 8, max_width: 1600 };
  assert.equal(lineWidth(image, 526, 22), 1152);  // 526 * 48 / 22 = 1147.6 -> 144 columns
  assert.equal(lineWidth(image, 3, 48), 16);
  assert.equal(lineWidth(image, 20000, 48), 1600);
});

test('the shipped line encoder costs what its layers add up to, nearly all of it in the pointwise convolutions', () => {
  const line = readLineModel(defaultModelDir());
  assert.ok(line, 'the shipped model has a line encoder');
  const e = line.encoder;
  const flops = encoderFlops(e, 48, 320);
  // The backbone's pointwise convolutions alone: about 1.2 GFLOP for a 320-pixel line.
  let H = 24, W = 160, pointwise = 0;
  for (const b of e.blocks) {
    H = Math.ceil(H / b.stride[0]);
    W = Math.ceil(W / b.stride[1]);
    pointwise += 2 * H * W * b.in * b.out;
  }
  assert.ok(Math.abs(pointwise - 1.2e9) < 0.01e9, `pointwise ${pointwise}`);
  assert.ok(flops > pointwise && flops < 1.2 * pointwise, `total ${flops}`);
  assert.equal(encoderFlops(e, 48, 640) > 1.9 * flops, true);
});
