// `node --import tsx scripts/detector-lines.ts OUT.json [DATA_DIR]`: our page detector's text lines on every
// word-scored development page (scribe, SROIE, FUNSD, both EHRI sources), as quadrilaterals in the image's
// pixels, with the time it took on one thread (lines and their direction; no layout) and each page's ground
// truth. scripts/compare_detectors.py reads them beside PP-OCRv6 small's detector (docs/decisions/0053).
import { readFileSync, writeFileSync } from 'node:fs';
import { isWordSource, loadDatasets } from '../main/node/eval/datasets';
import { loadAddon, pageAnalysisDir } from '../main/node/engine/native-addon';
import { detectPage } from '../main/node/pipeline/detect/detect-page';
import { corners } from '../main/node/pipeline/detect/rotated-box';
import { openPageSource } from '../main/node/pipeline/source/page-source';

async function main(out: string, data: string): Promise<void> {
  const items = (await loadDatasets(data)).filter((i) => isWordSource(i.dataset));
  // One thread, as the peer's detector runs.
  const nets = await loadAddon().loadPageAnalysis(pageAnalysisDir(), { backend: 'cpu', threads: 1 });
  const pages = [];
  for (const item of items) {
    const source = await openPageSource(new Uint8Array(readFileSync(item.image)));
    const raster = await source.render(0);
    const started = performance.now();
    const detection = await detectPage(raster, nets, { regions: false });
    const ms = performance.now() - started;
    const size = source.pages[0]!;
    const [sx, sy] = [size.width / raster.width, size.height / raster.height];
    const quads = detection.lines.map((l) => corners(l.box).map(([x, y]) => [x * sx, y * sy]));
    pages.push({ dataset: item.dataset, name: item.name, image: item.image, truth: item.truth, truthWords: item.truthWords ?? null,
      truthSize: item.truthSize ?? null, size, ms, quads });
    source.close();
    process.stderr.write(`${item.dataset}/${item.name}: ${quads.length} lines, ${ms.toFixed(0)} ms\n`);
  }
  writeFileSync(out, JSON.stringify(pages));
}

const [out, data = '../shared/data/real-dev'] = process.argv.slice(2);
if (!out) {
  console.error('usage: node --import tsx scripts/detector-lines.ts OUT.json [DATA_DIR]');
  process.exit(2);
}
main(out, data).catch((err: Error) => {
  console.error(`detector-lines: ${err.message}`);
  process.exit(1);
});
