"""Saccade and Tesseract through OCRmyPDF on the same scans, scored on their text layers.

    .venv-ocrmypdf/bin/python integrations/ocrmypdf/compare_engines.py [--data ../shared/data/real-dev] [--jobs 2]

Each source's page images become one PDF (each page at 300 dpi); it goes through ``ocrmypdf.ocr`` once per
engine (Tesseract with the source's language), and ``pdftotext -raw`` of each output is scored page by page
against the ground truth with the evaluation's bag-of-words F1, pooled over the source's pages. A measurement,
not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import img2pdf
import ocrmypdf

REPO = Path(__file__).resolve().parents[2]
SOURCES = {  # folder in real-dev: Tesseract's language
    'scribe-ocr-benchmark': 'eng',
    'ehri-typescripts-en': 'eng',
    'ehri-typescripts-de': 'deu',
    'funsd-forms': 'eng',
}


def matched(predicted: str, expected: str) -> tuple[int, int, int]:
    """The evaluation's bag-of-words matching (main/node/eval/text-metrics.ts wordScore): words matched,
    predicted and expected."""
    left = collections.Counter(expected.split())
    hits = 0
    for w in predicted.split():
        if left[w] > 0:
            hits += 1
            left[w] -= 1
    return hits, len(predicted.split()), len(expected.split())


def f1(hits: int, predicted: int, expected: int) -> float:
    p, r = hits / max(1, predicted), hits / max(1, expected)
    return 2 * p * r / (p + r) if p + r else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data', type=Path, default=REPO.parent / 'shared' / 'data' / 'real-dev')
    parser.add_argument('--jobs', type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for folder, language in SOURCES.items():
            images = sorted(p for p in (args.data / folder / 'images').glob('*') if p.suffix.lower() in ('.png', '.jpg', '.jpeg', '.tif', '.tiff'))
            images = [p for p in images if (args.data / folder / 'gt_txt' / f'{p.stem}.txt').is_file()]
            if not images:
                print(f'{folder}: not found under {args.data}; skipped', file=sys.stderr)
                continue
            pdf = Path(tmp, f'{folder}.pdf')
            pdf.write_bytes(img2pdf.convert([str(p) for p in images], layout_fun=img2pdf.get_fixed_dpi_layout_fun((300, 300))))
            truths = [(args.data / folder / 'gt_txt' / f'{p.stem}.txt').read_text(encoding='utf-8') for p in images]
            row = {'source': folder, 'pages': len(images)}
            for engine in ('saccade', 'tesseract'):
                out = Path(tmp, f'{folder}-{engine}.pdf')
                started = time.monotonic()
                ocrmypdf.ocr(pdf, out, ocr_engine=engine, language=[language], output_type='pdf', jobs=args.jobs, progress_bar=False)
                row[f'{engine}_s'] = time.monotonic() - started
                pages = subprocess.run(['pdftotext', '-raw', str(out), '-'], check=True, capture_output=True, text=True).stdout.split('\f')
                counts = [matched(text, truth) for text, truth in zip(pages, truths)]
                row[engine] = f1(*(sum(c[i] for c in counts) for i in range(3)))
            print(f"{folder}: {row['pages']} pages, word F1 Saccade {row['saccade']:.3f} ({row['saccade_s']:.0f} s), "
                  f"Tesseract {row['tesseract']:.3f} ({row['tesseract_s']:.0f} s)", flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
