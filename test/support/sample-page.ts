// Renders the synthetic decode's page as a PNG (sharp rasterises an SVG of its regions' text), so the
// replayed decode has a real scan under its boxes and heatmaps.
import sharp from 'sharp';
import { PAGE, SAMPLE_REGIONS } from './synthetic-decode';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function renderSamplePage(): Promise<Uint8Array> {
  const parts: string[] = [];
  for (const r of SAMPLE_REGIONS) {
    const h = r.box.y1 - r.box.y0;
    const lineH = h / r.lines.length;
    const size = r.kind === 'title' ? 34 : r.kind === 'formula' ? 30 : Math.min(24, lineH * 0.62);
    const width = r.box.x1 - r.box.x0;
    r.lines.forEach((line, i) => {
      const y = r.box.y0 + lineH * (i + 0.68);
      const weight = r.kind === 'title' ? 'bold' : 'normal';
      const family = r.kind === 'table' || r.kind === 'formula' ? 'DejaVu Sans Mono' : 'DejaVu Serif';
      parts.push(`<text x="${r.box.x0}" y="${y}" font-family="${family}" font-size="${size}" font-weight="${weight}" textLength="${Math.min(width, line.length * size * 0.56)}" lengthAdjust="spacingAndGlyphs" fill="#1a1a1a">${escape(line)}</text>`);
    });
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE.width}" height="${PAGE.height}"><rect width="100%" height="100%" fill="#fbfaf6"/>${parts.join('')}</svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}
