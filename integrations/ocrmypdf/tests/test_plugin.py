"""The plugin in the real OCRmyPDF, with Saccade's real engine and model, on real scans.

A two-page PDF of scanned legal pages (development scans of ../shared/data/real-dev, never copied here) goes
through ``ocrmypdf.ocr`` once with Saccade and once with Tesseract; the text layers are scored against the
ground truth with the evaluation's word F1, and Saccade's words are checked to stand where the ground truth
puts them. The tests skip, saying so, where the scans are absent.
"""

from __future__ import annotations

import html
import logging
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import img2pdf
import ocrmypdf
import pytest
from ocrmypdf.hocrtransform import HocrParser
from PIL import Image

from compare_engines import f1, matched
from saccade_ocrmypdf.plugin import SaccadeEngine

REPO = Path(__file__).resolve().parents[3]
REAL_DEV = Path(os.environ.get('SACCADE_REAL_DEV', REPO.parent / 'shared' / 'data' / 'real-dev'))
SCRIBE = REAL_DEV / 'scribe-ocr-benchmark'
PAGES = ['deposition_01', 'filing_01']
DPI = 300

needs_scans = pytest.mark.skipif(
    not all((SCRIBE / 'images' / f'{p}.png').is_file() for p in PAGES),
    reason=f'the development scans are not at {SCRIBE} (set SACCADE_REAL_DEV)',
)


@pytest.fixture(autouse=True)
def saccade_home(monkeypatch):
    monkeypatch.setenv('SACCADE_HOME', str(REPO))


def pdftotext(pdf: Path, *args: str) -> str:
    return subprocess.run(['pdftotext', *args, str(pdf), '-'], check=True, capture_output=True, text=True).stdout


def page_texts(pdf: Path) -> list[str]:
    return pdftotext(pdf, '-raw').split('\f')[: len(PAGES)]


@pytest.fixture(scope='module')
def scanned_pdf(tmp_path_factory) -> Path:
    pdf = tmp_path_factory.mktemp('scans') / 'two-pages.pdf'
    pdf.write_bytes(img2pdf.convert(
        [str(SCRIBE / 'images' / f'{p}.png') for p in PAGES], layout_fun=img2pdf.get_fixed_dpi_layout_fun((DPI, DPI))
    ))
    return pdf


@pytest.fixture(scope='module')
def outputs(scanned_pdf) -> dict[str, Path]:
    """The same PDF through OCRmyPDF with each engine, as `ocrmypdf [--ocr-engine saccade] in.pdf out.pdf` makes it."""
    out = {}
    for engine in ('saccade', 'tesseract'):
        out[engine] = scanned_pdf.with_name(f'{engine}.pdf')
        assert ocrmypdf.ocr(scanned_pdf, out[engine], ocr_engine=engine, progress_bar=False) == ocrmypdf.ExitCode.ok
    return out


def test_hocr_is_what_ocrmypdfs_parser_reads(tmp_path):
    # A real page image as OCRmyPDF hands it to an engine: a PNG with its resolution.
    image = tmp_path / '000001_ocr.png'
    source = Path(REPO, 'assets', 'samples', 'scanned-page.png')
    with Image.open(source) as im:
        im.save(image, dpi=(DPI, DPI))
        size = im.size
    hocr, text = tmp_path / 'page.hocr', tmp_path / 'page.txt'
    SaccadeEngine.generate_hocr(image, hocr, text, ocrmypdf_options())

    tree = ET.parse(hocr)  # well-formed XML
    ns = {'h': 'http://www.w3.org/1999/xhtml'}
    assert tree.findall('.//h:p[@class="ocr_par"]/h:span[@class="ocr_line"]/h:span[@class="ocrx_word"]', ns)
    # OCRmyPDF's parser reads bbox and x_wconf by their own patterns; a word the line encoder read alone
    # carries one more property, x_source (docs/decisions/0048), which it passes over.
    for word in tree.iterfind('.//h:span[@class="ocrx_word"]', ns):
        assert re.fullmatch(r'bbox \d+ \d+ \d+ \d+; x_wconf (\d|[1-9]\d|100)(; x_source encoder)?', word.get('title')), word.get('title')

    page = HocrParser(hocr).parse()
    assert (page.bbox.left, page.bbox.top, page.bbox.right, page.bbox.bottom) == (0, 0, *size)
    assert page.dpi == DPI
    words = [w for par in page.children for line in par.children for w in line.children]
    assert len(words) > 50
    assert all(0 <= w.bbox.left < w.bbox.right <= size[0] and 0 <= w.bbox.top < w.bbox.bottom <= size[1] for w in words)
    assert all(0.0 <= w.confidence <= 1.0 for w in words)
    assert ' '.join(w.text for w in words[:20]) in ' '.join(text.read_text().split())


def ocrmypdf_options(**extra):
    """OCRmyPDF's own options object for direct engine calls, as its CLI would build it."""
    from ocrmypdf._options import OcrOptions  # noqa: PLC0415

    return OcrOptions(input_file='in.pdf', output_file='out.pdf', ocr_engine='saccade', **extra)


@needs_scans
def test_reads_at_least_as_well_as_tesseract(outputs):
    expected = [(SCRIBE / 'gt_txt' / f'{p}.txt').read_text() for p in PAGES]
    scores = {}
    for engine, pdf in outputs.items():
        scores[engine] = f1(*matched('\n'.join(page_texts(pdf)), '\n'.join(expected)))
    print(f'word F1 on {", ".join(PAGES)}: ' + ', '.join(f'{e} {s:.3f}' for e, s in scores.items()))
    assert scores['saccade'] >= scores['tesseract'], scores
    assert 'Saccade' in subprocess.run(['pdfinfo', str(outputs['saccade'])], capture_output=True, text=True).stdout


def ground_truth_words(stem: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    hocr = (SCRIBE / 'gt_hocr' / f'{stem}.hocr').read_text(encoding='utf-8')
    found = re.findall(r"class=['\"]ocrx_word['\"][^>]*title=['\"]bbox (\d+) (\d+) (\d+) (\d+)[^>]*>(.*?)</span>", hocr)
    return [(html.unescape(re.sub(r'<[^>]+>', '', t)), tuple(float(v) for v in b)) for *b, t in found]


@needs_scans
def test_words_stand_where_the_ground_truth_puts_them(outputs):
    # pdftotext -bbox gives each word of the text layer in points; the ground truth's boxes are in the scan's
    # pixels at 300 dpi. Words that occur once on the page in both are compared: our word's centre must lie in
    # the ground truth's box.
    xhtml = pdftotext(outputs['saccade'], '-bbox')
    pages = re.findall(r'<page [^>]*>(.*?)</page>', xhtml, re.S)
    for stem, page in zip(PAGES, pages):
        ours = [(html.unescape(t), tuple(float(v) * DPI / 72 for v in b))
                for *b, t in re.findall(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', page)]
        truth = ground_truth_words(stem)
        once = lambda words: {t: b for t, b in words if sum(1 for u, _ in words if u == t) == 1}  # noqa: E731
        ours_once, truth_once = once(ours), once(truth)
        common = ours_once.keys() & truth_once.keys()
        assert len(common) > 50, (stem, len(common))
        inside = sum(
            1 for w in common
            if truth_once[w][0] <= (ours_once[w][0] + ours_once[w][2]) / 2 <= truth_once[w][2]
            and truth_once[w][1] <= (ours_once[w][1] + ours_once[w][3]) / 2 <= truth_once[w][3]
        )
        print(f'{stem}: {inside}/{len(common)} words inside their ground-truth box')
        assert inside >= 0.9 * len(common), (stem, inside, len(common))


@needs_scans
def test_a_page_that_times_out_gets_an_empty_layer_and_a_warning(scanned_pdf, tmp_path, caplog):
    out = tmp_path / 'timed-out.pdf'
    with caplog.at_level(logging.WARNING):
        code = ocrmypdf.ocr(scanned_pdf, out, ocr_engine='saccade', saccade_timeout=0.01, use_threads=True,
                            output_type='pdf', progress_bar=False)
    assert code == ocrmypdf.ExitCode.ok
    assert [t.strip() for t in page_texts(out)] == ['', '']
    warnings = ' '.join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    for n in (1, 2):
        assert re.search(rf'page {n}: Saccade took more than 0.01 s .*; the page gets an empty text layer', warnings), warnings


def test_a_missing_saccade_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setenv('SACCADE_HOME', str(tmp_path))
    with pytest.raises(ocrmypdf.exceptions.MissingDependencyError, match=r'page-service\.js is missing: run `npm install`'):
        ocrmypdf.ocr(tmp_path / 'in.pdf', tmp_path / 'out.pdf', ocr_engine='saccade')
