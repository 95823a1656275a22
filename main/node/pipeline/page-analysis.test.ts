import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blankImage } from './gray-image';
import { analysePage } from './page-analysis';

test('a line of ink lower than half a letter is flat; lines of letters are not', () => {
  const page = blankImage(600, 300);
  const fill = (x0: number, y0: number, x1: number, y1: number) => {
    for (let y = y0; y < y1; y++) page.data.fill(0, y * page.width + x0, y * page.width + x1);
  };
  // Four lines of 8 x 10 glyphs (the page's letter height), then a lone connector 24 px long and 3 px high.
  for (let row = 0; row < 4; row++) for (let g = 0; g < 30; g++) fill(40 + g * 12, 20 + row * 20, 48 + g * 12, 30 + row * 20);
  fill(200, 200, 224, 203);
  const crops = analysePage(0, page).crops;
  const flat = crops.filter((c) => c.flat);
  assert.equal(flat.length, 1, JSON.stringify(crops.map((c) => [c.box, c.flat])));
  assert.ok(flat[0]!.box.y0 <= 200 && flat[0]!.box.y1 >= 203 && flat[0]!.box.y1 - flat[0]!.box.y0 < 10, JSON.stringify(flat[0]!.box));
  assert.equal(crops.filter((c) => !c.flat && c.box.y1 < 100).length, 4);
});
