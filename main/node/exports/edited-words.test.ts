import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box, PageInfo } from '../../../common/protocol';
import { editedPages, plainWords, spreadBoxes, type DecodedPage } from './edited-words';
import type { HocrRegion } from './hocr';
import type { LineBox } from '../pipeline/write/word-boxes';

const PAGES: PageInfo[] = [{ index: 0, width: 1000, height: 1400 }, { index: 1, width: 1000, height: 1400 }];

/** A line at `y` (30 px high) of words laid from x = 100, each 10 px a character and 10 px apart. */
function line(y: number, text: string): LineBox {
  let x = 100;
  const words = text.split(' ').map((w) => {
    const box = { x0: x, y0: y, x1: x + 10 * w.length, y1: y + 30 };
    x = box.x1 + 10;
    return { text: w, box, confidence: 0.9 };
  });
  return { box: { x0: 100, y0: y, x1: x - 10, y1: y + 30 }, words };
}

function region(id: string, page: number, lines: LineBox[], kind: HocrRegion['region']['kind'] = 'text'): HocrRegion {
  return { region: { id, page, kind, box: { x0: 0, y0: 0, x1: 1000, y1: 1400 }, order: 0 }, lines };
}

const fox: DecodedPage = { page: 0, textAngle: 0, regions: [region('p0-r0', 0, [line(100, 'The quick brown fox'), line(140, 'jumps over it')])] };
const decodedText = 'The quick brown fox\njumps over it';

const words = (pages: Map<number, HocrRegion[]>, page = 0) => pages.get(page)!.flatMap((r) => r.lines.flatMap((l) => l.words));
const texts = (pages: Map<number, HocrRegion[]>, page = 0) => words(pages, page).map((w) => w.text).join(' ');
const boxOf = (pages: Map<number, HocrRegion[]>, text: string, page = 0) => words(pages, page).find((w) => w.text === text)!.box;
const decodedBox = (text: string): Box => fox.regions[0]!.lines.flatMap((l) => l.words).find((w) => w.text === text)!.box;

test('Markdown markup is not a word: headings, emphasis, table pipes and tags, math fences, rules, page breaks', () => {
  assert.deepEqual(plainWords('# A **bold** _move_', true), ['A', 'bold', 'move']);
  assert.deepEqual(plainWords('| cell one | `two` |', true), ['cell', 'one', 'two']);
  assert.deepEqual(plainWords('|---|:---:|', true), []);
  assert.deepEqual(plainWords('<table><tr><td>Fish &amp; chips</td><td>3 < 4</td></tr></table>', true), ['Fish', '&', 'chips', '3', '<', '4']);
  assert.deepEqual(plainWords('$$', true), []);
  assert.deepEqual(plainWords('---', true), []);
  assert.deepEqual(plainWords('<!-- page 2 -->', true), []);
  // A hash or a dash inside a line is text.
  assert.deepEqual(plainWords('- item - # 5', true), ['item', '-', '#', '5']);
});

test('the decoded text as it was keeps every word at its box', () => {
  const pages = editedPages([fox], decodedText, PAGES);
  assert.equal(texts(pages), 'The quick brown fox jumps over it');
  for (const w of words(pages)) assert.deepEqual(w.box, decodedBox(w.text));
});

test('an edited word takes the place of the word it replaces; the other words keep theirs', () => {
  const pages = editedPages([fox], 'The quick brawn fox\njumps ovr it', PAGES);
  assert.equal(texts(pages), 'The quick brawn fox jumps ovr it');
  assert.deepEqual(boxOf(pages, 'brawn'), decodedBox('brown'));
  assert.deepEqual(boxOf(pages, 'ovr'), decodedBox('over'));
  assert.deepEqual(boxOf(pages, 'fox'), decodedBox('fox'));
  // Markup the editor wrote around a word is not part of it.
  const bold = editedPages([fox], 'The quick **brawn** fox\njumps over it', PAGES);
  assert.deepEqual(boxOf(bold, 'brawn'), decodedBox('brown'));
});

test('a line that gains or loses words has them spread over its box, in order', () => {
  const lineBox = fox.regions[0]!.lines[0]!.box;
  for (const edited of ['The very quick brown fox', 'The brown fox', 'The quick brown-fox']) {
    const pages = editedPages([fox], `${edited}\njumps over it`, PAGES);
    assert.equal(texts(pages), `${edited} jumps over it`);
    const first = pages.get(0)![0]!.lines[0]!.words;
    assert.deepEqual(first.map((w) => w.text), edited.split(' '));
    assert.equal(first[0]!.box.x0, lineBox.x0);
    assert.equal(first.at(-1)!.box.x1, lineBox.x1);
    first.forEach((w, k) => {
      assert.deepEqual([w.box.y0, w.box.y1], [lineBox.y0, lineBox.y1]);
      if (k > 0) assert.ok(w.box.x0 > first[k - 1]!.box.x1, `${w.text} after ${first[k - 1]!.text}`);
      // As wide as its characters: 'The' and 'fox' alike.
      assert.ok(Math.abs(w.box.x1 - w.box.x0 - [...w.text].length * (first[0]!.box.x1 - first[0]!.box.x0) / 3) < 1e-6);
    });
    // The line not edited keeps its boxes.
    assert.deepEqual(boxOf(pages, 'jumps'), decodedBox('jumps'));
  }
});

test('a line the user added is kept, under the line it follows and as wide as its characters there', () => {
  const pages = editedPages([fox], `${decodedText}\nA new line`, PAGES);
  assert.equal(texts(pages), 'The quick brown fox jumps over it A new line');
  const lines = pages.get(0)![0]!.lines;
  assert.equal(lines.length, 3);
  const above = fox.regions[0]!.lines[1]!.box;
  const added = lines[2]!;
  assert.deepEqual([added.box.y0, added.box.y1, added.box.x0], [above.y1, above.y1 + 30, above.x0]);
  // 'A new line' is 10 characters; 'jumps over it' 13 over 130 px.
  assert.ok(Math.abs(added.box.x1 - added.box.x0 - 100) < 1e-6);
  // Two lines typed before the first decoded line stand over it, in their order.
  const before = editedPages([fox], `First typed\nSecond typed\n${decodedText}`, PAGES);
  assert.equal(texts(before), 'First typed Second typed The quick brown fox jumps over it');
  const [first, second] = before.get(0)![0]!.lines;
  assert.deepEqual([first!.box.y0, second!.box.y0], [40, 70]);
});

test('a line rewritten whole takes the place of the line it replaces', () => {
  const pages = editedPages([fox], 'The quick brown fox\nleaps across all of them', PAGES);
  const lines = pages.get(0)![0]!.lines;
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[1]!.words.map((w) => w.text), ['leaps', 'across', 'all', 'of', 'them']);
  const old = fox.regions[0]!.lines[1]!.box;
  assert.deepEqual([lines[1]!.words[0]!.box.x0, lines[1]!.words.at(-1)!.box.x1, lines[1]!.box.y0], [old.x0, old.x1, old.y0]);
  // A line deleted whole leaves no words.
  assert.equal(texts(editedPages([fox], 'The quick brown fox', PAGES)), 'The quick brown fox');
});

test('page breaks keep each page\'s edits on its page; a page without decoded lines gets its typed text at its top', () => {
  const second: DecodedPage = { page: 1, textAngle: 0, regions: [region('p1-r0', 1, [line(100, 'The quick brown fox')])] };
  const text = 'The quick brown fox\n\n---\n\n<!-- page 2 -->\n\nThe quick brawn fox';
  const pages = editedPages([{ ...fox, regions: [region('p0-r0', 0, [line(100, 'The quick brown fox')])] }, second], text, PAGES);
  assert.equal(texts(pages, 0), 'The quick brown fox');
  assert.equal(texts(pages, 1), 'The quick brawn fox');
  const onlyFirst = editedPages([fox], `${decodedText}\n\n---\n\n<!-- page 2 -->\n\nTyped on page two`, PAGES);
  assert.equal(texts(onlyFirst, 0), 'The quick brown fox jumps over it');
  assert.equal(texts(onlyFirst, 1), 'Typed on page two');
  const top = words(onlyFirst, 1)[0]!.box;
  assert.ok(top.y0 < 100 && top.x0 < 100, JSON.stringify(top));
});

test('a line turned a quarter: its words spread down the page, along the text', () => {
  const boxes = spreadBoxes({ x0: 100, y0: 200, x1: 130, y1: 400 }, ['ab', 'cd'], 1);
  assert.deepEqual(boxes.map((b) => [b.x0, b.x1]), [[100, 130], [100, 130]]);
  assert.ok(boxes[0]!.y0 === 200 && boxes[1]!.y1 === 400 && boxes[0]!.y1 < boxes[1]!.y0, JSON.stringify(boxes));
});
