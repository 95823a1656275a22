// A printed page of Chinese and Japanese lines, set in Noto Sans CJK (Debian's fonts-noto-cjk), through the CLI
// with the shipped model: the lines are read, not dropped. The decoder's vocabulary is Latin, so each line is
// written from the line encoder's own reading (tokens of source "encoder" in the JSON, words marked
// `x_source encoder` in the hOCR), and the Markdown's characters are within 5% of the printed ones.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sharp } from './inputs/image-codec';
import { addonPath, defaultModelDir } from './engine/native-addon';
import { editDistance, markdownPlainText } from './eval/text-metrics';

const ROOT = join(__dirname, '..', '..');

const PRINTED = [
  '今天的天气很好，我们下午去公园散步。',
  '这份报告包括三张表格和两页说明。',
  '请在星期五之前把申请表交给办公室。',
  '图书馆每天早上九点开门，晚上八点关门。',
  '東京駅から新幹線で大阪へ向かいます。',
  'この書類は来週の会議で使います。',
  '駅の近くに新しい喫茶店ができました。',
  '会議室の予約は受付でお願いします。',
];

async function renderPage(): Promise<Buffer> {
  const lines = PRINTED.map((text, i) =>
    `<text x="120" y="${200 + i * 90}" font-family="Noto Sans CJK SC" font-size="40" fill="#202020">${text}</text>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1240" height="1000"><rect width="100%" height="100%" fill="#fafaf7"/>${lines.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

const characters = (text: string) => [...text.replace(/\s+/g, '')];

test('a page of Chinese and Japanese lines is read by the line encoder, marked so, within 5% of its characters', { skip: !existsSync(addonPath()) && 'native engine not built' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-cjk-'));
  const page = join(dir, 'cjk.png');
  writeFileSync(page, await renderPage());
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), page, '-o', join(dir, 'cjk.md'), '--json', '--hocr',
    '--model', defaultModelDir()], { encoding: 'utf8', cwd: ROOT, timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);

  const read = characters(markdownPlainText(readFileSync(join(dir, 'cjk.md'), 'utf8')));
  const printed = characters(PRINTED.join(''));
  const cer = editDistance(read, printed) / printed.length;
  assert.ok(cer <= 0.05, `CER ${(100 * cer).toFixed(1)}%: read "${read.join('')}"`);

  const json = JSON.parse(readFileSync(join(dir, 'cjk.json'), 'utf8')) as { pages: Array<{ regions: Array<{ tokens: Array<{ source: string; id: number; text: string }> }> }> };
  const tokens = json.pages.flatMap((p) => p.regions.flatMap((region) => region.tokens)).filter((t) => t.text.trim());
  assert.ok(tokens.length >= printed.length * 0.9, `${tokens.length} tokens for ${printed.length} characters`);
  assert.ok(tokens.every((t) => t.source === 'encoder' && t.id === -1), 'every character is the encoder\'s');

  const hocrWords = [...readFileSync(join(dir, 'cjk.hocr'), 'utf8').matchAll(/class="ocrx_word" [^>]*title="([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(hocrWords.length >= PRINTED.length && hocrWords.every((title) => title.endsWith('; x_source encoder')), hocrWords.join('\n'));
});
