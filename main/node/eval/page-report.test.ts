import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writePageReport } from './page-report';

test('a page report lists the wrong words the confidence called sure, and only those', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-report-'));
  try {
    const box = { x0: 0, y0: 0, x1: 10, y1: 10 };
    const file = writePageReport(dir, {
      dataset: 'scribe', name: 'page/1', image: '/nowhere/page.png', frame: { width: 100, height: 50 },
      truth: 'the quick fox', caseInsensitive: false,
      ours: {
        text: 'the quiek fax', f1: 0.33, regions: [], ms: 5,
        words: [{ text: 'the', box, confidence: 0.99 }, { text: 'quiek', box, confidence: 0.95 }, { text: 'fax', box, confidence: 0.4 }],
      },
    });
    assert.equal(file, join(dir, 'scribe-page_1.html'));
    const html = readFileSync(file, 'utf8');
    const section = html.slice(html.indexOf('<h2>Wrong and sure'), html.indexOf('<h2>Our text'));
    assert.match(section, /Wrong and sure \(1\)/);
    assert.match(section, /quiek 0\.95/);
    assert.doesNotMatch(section, /fax|the /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
