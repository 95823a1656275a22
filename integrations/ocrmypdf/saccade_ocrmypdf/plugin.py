"""The OCRmyPDF plugin: Saccade's engine, chosen with ``--ocr-engine saccade``.

OCRmyPDF loads this module through the ``ocrmypdf`` entry point of the installed package; Tesseract stays the
engine unless ``--ocr-engine saccade`` asks for Saccade. OCRmyPDF 17 has that option and passes the options
to ``get_ocr_engine``. OCRmyPDF 16 has neither: the plugin adds the option, and ``check_options``, which 16 calls
just before it asks for the engine, leaves the choice in the environment, which its worker processes inherit.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path

from ocrmypdf import __version__ as ocrmypdf_version
from ocrmypdf import hookimpl
from ocrmypdf.exceptions import BadArgsError, MissingDependencyError
from ocrmypdf.pluginspec import OcrEngine, OrientationConfidence
from PIL import Image

from .page_service import PageServiceError, forget_this_workers_service_if_stopped, service_for_this_worker

log = logging.getLogger(__name__)

ENGINE = 'saccade'
VERSION = '0.1.0'
SERVICE_SCRIPT = Path('out', 'main', 'page-service.js')
DEFAULT_TIMEOUT = 300.0


def _option(options, name: str, default=None):
    """A plugin option on OCRmyPDF 17's options (kept among its extra attributes) or 16's argparse Namespace."""
    value = getattr(options, name, None)
    if value is None:
        value = getattr(options, 'extra_attrs', {}).get(name)
    return default if value is None else value


def saccade_home(options) -> Path:
    """The Saccade folder (where ``npm install`` built it): the option, $SACCADE_HOME, or the checkout this
    package was installed from in editable mode."""
    given = _option(options, 'saccade_home') or os.environ.get('SACCADE_HOME')
    if given:
        return Path(given).expanduser().resolve()
    for folder in Path(__file__).resolve().parents:
        if (folder / SERVICE_SCRIPT).is_file():
            return folder
    raise MissingDependencyError(
        'Saccade was not found: pass --saccade-home DIR or set SACCADE_HOME to the folder Saccade was built in '
        '(where `npm install` ran)'
    )


def service_command(options) -> list[str]:
    home = saccade_home(options)
    script = home / SERVICE_SCRIPT
    if not script.is_file():
        raise MissingDependencyError(f'{script} is missing: run `npm install` (or `npm run build`) in {home}')
    node = shutil.which('node')
    if node is None:
        raise MissingDependencyError('Saccade needs Node.js (`node` on the PATH)')
    # OCRmyPDF reads pages in parallel, one per worker: each worker's engine gets its share of the cores.
    jobs = _option(options, 'jobs') or os.cpu_count() or 1
    command = [node, str(script), '--threads', str(max(1, (os.cpu_count() or 1) // jobs))]
    model = _option(options, 'saccade_model')
    if model:
        command += ['--model', str(Path(model).expanduser().resolve())]
    return command


def _tesseract_engine():
    """OCRmyPDF's own Tesseract engine, where Tesseract is installed."""
    if shutil.which('tesseract') is None:
        return None
    from ocrmypdf.builtin_plugins.tesseract_ocr import TesseractOcrEngine  # noqa: PLC0415

    return TesseractOcrEngine


def page_number(input_file: Path) -> str:
    """OCRmyPDF names a page's images after the page: 000003_ocr.png is page 3."""
    match = re.match(r'0*(\d+)', input_file.name)
    return match.group(1) if match else input_file.name


def write_empty_page(input_file: Path, output_hocr: Path, output_text: Path) -> None:
    """A page with no words: OCRmyPDF keeps the page and gives it an empty text layer."""
    with Image.open(input_file) as im:
        width, height = im.size
    output_hocr.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>page</title>'
        '<meta name="ocr-system" content="saccade" /></head><body>\n'
        f'<div class="ocr_page" id="page_1" title="bbox 0 0 {width} {height}; ppageno 0"></div>\n'
        '</body></html>\n',
        encoding='utf-8',
    )
    output_text.write_text('', encoding='utf-8')


class SaccadeEngine(OcrEngine):
    @staticmethod
    def version() -> str:
        return VERSION

    @staticmethod
    def creator_tag(options) -> str:
        return f'Saccade {VERSION}'

    def __str__(self) -> str:
        return f'Saccade {VERSION}'

    @staticmethod
    def languages(options) -> set[str]:
        # One model reads printed Latin-script text; it was measured on English and German pages (German
        # umlauts on typewritten pages are its weakest point). The language asked for does not change it.
        return {'eng', 'deu'}

    @staticmethod
    def get_orientation(input_file: Path, options) -> OrientationConfidence:
        # --rotate-pages and --deskew are OCRmyPDF's, done by its Tesseract where that is installed. Saccade
        # itself reads a turned page as it is (its hOCR gives the lines' textangle), so without Tesseract the
        # page is left as it is.
        tesseract = _tesseract_engine()
        return tesseract.get_orientation(input_file, options) if tesseract else OrientationConfidence(angle=0, confidence=0.0)

    @staticmethod
    def get_deskew(input_file: Path, options) -> float:
        tesseract = _tesseract_engine()
        return tesseract.get_deskew(input_file, options) if tesseract else 0.0

    @staticmethod
    def generate_hocr(input_file: Path, output_hocr: Path, output_text: Path, options) -> None:
        timeout = float(_option(options, 'saccade_timeout', DEFAULT_TIMEOUT))
        try:
            service = service_for_this_worker(service_command(options), timeout)
            service.read_page(input_file, output_hocr, output_text)
        except PageServiceError as e:
            forget_this_workers_service_if_stopped()
            log.warning('page %s: %s; the page gets an empty text layer', page_number(input_file), e)
            write_empty_page(input_file, output_hocr, output_text)

    @staticmethod
    def generate_pdf(input_file: Path, output_pdf: Path, output_text: Path, options) -> None:
        # The sandwich renderer asks for a text-only PDF: Saccade's hOCR, set by OCRmyPDF's own renderer.
        output_hocr = output_pdf.with_suffix('.hocr')
        SaccadeEngine.generate_hocr(input_file, output_hocr, output_text, options)
        render_text_only_pdf(output_hocr, output_pdf)


def render_text_only_pdf(hocr: Path, pdf: Path) -> None:
    """A PDF of the hOCR's words alone, invisible, sized to its page (OCRmyPDF 17's renderer, or 16's)."""
    try:
        from ocrmypdf.font import MultiFontManager  # noqa: PLC0415
        from ocrmypdf.fpdf_renderer import Fpdf2PdfRenderer  # noqa: PLC0415
        from ocrmypdf.hocrtransform import HocrParser  # noqa: PLC0415
    except ImportError:
        from ocrmypdf.hocrtransform import HocrTransform  # noqa: PLC0415

        HocrTransform(hocr_filename=hocr, dpi=300).to_pdf(out_filename=pdf, image_filename=None, invisible_text=True)
        return
    page = HocrParser(hocr).parse()
    import ocrmypdf  # noqa: PLC0415

    fonts = MultiFontManager(Path(ocrmypdf.__file__).parent / 'data')
    Fpdf2PdfRenderer(page=page, dpi=page.dpi or 300, multi_font_manager=fonts, invisible_text=True).render(pdf)


@hookimpl
def add_options(parser):
    engine = next((a for a in parser._actions if '--ocr-engine' in a.option_strings), None)
    if engine is None:
        parser.add_argument('--ocr-engine', choices=['tesseract', ENGINE], default='tesseract', help='the OCR engine (Saccade\'s plugin)')
    elif engine.choices is not None and ENGINE not in engine.choices:
        engine.choices = [*engine.choices, ENGINE]
    group = parser.add_argument_group('Saccade', 'Options of the Saccade OCR engine (--ocr-engine saccade)')
    group.add_argument('--saccade-home', metavar='DIR', help='the folder Saccade was built in (default: $SACCADE_HOME)')
    group.add_argument('--saccade-model', metavar='DIR', help="a model folder other than Saccade's own")
    group.add_argument(
        '--saccade-timeout', type=float, metavar='SECONDS',
        help=f'give up on a page after this long; it gets an empty text layer (default {DEFAULT_TIMEOUT:g})',
    )


def _selected(options) -> bool:
    return _option(options, 'ocr_engine') == ENGINE


# OCRmyPDF 16's get_ocr_engine sees no options: check_options leaves the choice here for it, in this process
# and in the worker processes it starts.
CHOSEN = 'SACCADE_OCRMYPDF_ENGINE_CHOSEN'


@hookimpl
def check_options(options):
    os.environ.pop(CHOSEN, None)
    if _selected(options):
        os.environ[CHOSEN] = '1'
        service_command(options)
        timeout = _option(options, 'saccade_timeout', DEFAULT_TIMEOUT)
        if not float(timeout) > 0:
            raise BadArgsError('--saccade-timeout must be a positive number of seconds')


if int(ocrmypdf_version.split('.')[0]) >= 17:

    @hookimpl
    def get_ocr_engine(options):
        return SaccadeEngine() if options is not None and _selected(options) else None

else:

    @hookimpl
    def get_ocr_engine():
        return SaccadeEngine() if os.environ.get(CHOSEN) == '1' else None
