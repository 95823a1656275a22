"""Renders the bundled synthetic sample documents (assets/samples) and the layout fixtures of the page pipeline's tests
(test/fixtures/pages) from the synthetic page generator, so both can be rebuilt at any time.

    cd training && /usr/bin/python3 ../scripts/make_samples.py

Samples stay small (a few hundred KB) because they are committed: grayscale, PNG or JPEG, 1-2 pages.
"""

import io
import json
import math
import os
import random
import sys

import cv2
import numpy as np
from PIL import Image

# The generator's choices go through sets of strings; fixed hashing makes a seed give the same page every run.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "training"))

from saccade.synth import generate_page  # noqa: E402

SAMPLES = os.path.join(ROOT, "assets", "samples")
FIXTURES = os.path.join(ROOT, "test", "fixtures", "pages")
MAX_SAMPLE_BYTES = 400_000


def photographed(page: np.ndarray, seed: int) -> np.ndarray:
    """The page as a phone would see it: slightly turned, in perspective, lit unevenly, on a dark desk."""
    rng = random.Random(seed)
    h, w = page.shape
    pad = int(0.08 * max(w, h))
    canvas = np.full((h + 2 * pad, w + 2 * pad), 60, np.uint8)
    canvas[pad:pad + h, pad:pad + w] = page
    ch, cw = canvas.shape
    src = np.float32([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]])
    jitter = lambda: rng.uniform(-0.02, 0.02) * w  # noqa: E731
    dst = np.float32([[x + jitter(), y + jitter()] for x, y in src])
    warped = cv2.warpPerspective(canvas, cv2.getPerspectiveTransform(src, dst), (cw, ch), borderValue=60)
    angle = rng.uniform(-3, 3)
    turned = cv2.warpAffine(warped, cv2.getRotationMatrix2D((cw / 2, ch / 2), angle, 1.0), (cw, ch), borderValue=60)
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    light = 0.65 + 0.35 * np.exp(-(((xx - 0.3 * cw) / cw) ** 2 + ((yy - 0.25 * ch) / ch) ** 2) * 2.0)
    return np.clip(turned.astype(np.float32) * light, 0, 255).astype(np.uint8)


def save_checked(data: bytes, name: str) -> None:
    if len(data) > MAX_SAMPLE_BYTES:
        raise SystemExit(f"{name} is {len(data)} bytes, over {MAX_SAMPLE_BYTES}")
    with open(os.path.join(SAMPLES, name), "wb") as f:
        f.write(data)


def encoded(img: Image.Image, fmt: str, **kw) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def make_samples() -> None:
    os.makedirs(SAMPLES, exist_ok=True)
    # Seeds picked for small files: noisy scan looks make PNGs of a megabyte.
    page = Image.fromarray(generate_page(15).image)
    save_checked(encoded(page, "PNG", optimize=True), "scanned-page.png")
    pages = [Image.fromarray(generate_page(s).image) for s in (13, 18)]
    save_checked(encoded(pages[0], "PDF", save_all=True, append_images=pages[1:], resolution=110.0, quality=50),
                 "two-page-report.pdf")
    # A phone sees a sheet at higher resolution than the generator's ~120 dpi scans.
    sheet = Image.fromarray(generate_page(31).image)
    sheet = sheet.resize((sheet.width * 8 // 5, sheet.height * 8 // 5), Image.BICUBIC)
    photo = Image.fromarray(photographed(np.asarray(sheet), 31))
    save_checked(encoded(photo, "JPEG", quality=80), "page-photo.jpg")
    # The real scan is committed as found (assets/samples/NOTICE.md); it comes first, as the sample to try.
    index = [
        {"name": "huckleberry-finn-p29.jpg", "title": "Real scan: a book page with an illustration (JPEG)"},
        {"name": "scanned-page.png", "title": "Scanned page (PNG)"},
        {"name": "two-page-report.pdf", "title": "Two-page report (PDF)"},
        {"name": "page-photo.jpg", "title": "Photographed page (JPEG)"},
    ]
    with open(os.path.join(SAMPLES, "samples.json"), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")


def make_fixtures(seeds: range) -> None:
    """Pages with their region ground truth (box, kind, order) for the layout tests."""
    os.makedirs(FIXTURES, exist_ok=True)
    for seed in seeds:
        page = generate_page(seed)
        name = f"page-{seed:03d}"
        # JPEG keeps a dozen noisy scans under a megabyte; layout does not care about its artefacts.
        Image.fromarray(page.image).save(os.path.join(FIXTURES, name + ".jpg"), quality=60)
        regions = [{"box": list(map(int, r["box"])), "kind": r["kind"], "order": r["order"]} for r in page.regions]
        with open(os.path.join(FIXTURES, name + ".json"), "w") as f:
            json.dump({"width": page.image.shape[1], "height": page.image.shape[0], "regions": regions}, f, indent=1)
            f.write("\n")


def make_form() -> None:
    """A form with check boxes, empty and ticked, before their labels and after one, beside typewriter text whose
    "m" and "n" are about a box's size: what the check-box tests read."""
    from PIL import ImageDraw, ImageFilter, ImageFont

    fonts = "/usr/share/fonts/truetype/dejavu/"
    sans = ImageFont.truetype(fonts + "DejaVuSans.ttf", 26)
    mono = ImageFont.truetype(fonts + "DejaVuSansMono.ttf", 26)
    page = Image.new("L", (1100, 660), 255)
    draw = ImageDraw.Draw(page)

    def box(x: int, y: int, ticked: bool) -> int:
        side = 24
        draw.rectangle((x, y + 5, x + side, y + 5 + side), outline=0, width=2)
        if ticked:
            draw.line((x + 5, y + 10, x + side - 5, y + side), fill=0, width=3)
            draw.line((x + side - 5, y + 10, x + 5, y + side), fill=0, width=3)
        return x + side + 14

    draw.text((60, 40), "Purchase requisition", font=sans, fill=0)
    draw.text((box(60, 110, False), 110), "Purchasing", font=sans, fill=0)
    draw.text((box(60, 170, True), 170), "Stationery", font=sans, fill=0)
    x = 60 + draw.textlength("Approved by the committee ", font=sans)
    draw.text((60, 230), "Approved by the committee", font=sans, fill=0)
    box(int(x) + 4, 230, True)
    x = 60 + draw.textlength("Paid ", font=sans)
    draw.text((60, 270), "Paid", font=sans, fill=0)
    x = box(int(x) + 4, 270, False)
    draw.text((x, 270), "Yes", font=sans, fill=0)
    x = box(int(x + draw.textlength("Yes ", font=sans)) + 4, 270, True)
    draw.text((x, 270), "No", font=sans, fill=0)
    draw.text((60, 350), "Summon the common men and women", font=mono, fill=0)
    draw.text((60, 400), "in the morning; the minutes remain.", font=mono, fill=0)
    # A ruled table whose cells hold boxes.
    top, left, widths, row_h = 470, 60, (260, 120, 120), 44
    rows = (("Item", "Yes", "No"), ("Signed", True, False), ("Paid", False, True))
    for r, cells in enumerate(rows):
        x = left
        for c, cell in enumerate(cells):
            draw.rectangle((x, top + r * row_h, x + widths[c], top + (r + 1) * row_h), outline=0, width=2)
            if isinstance(cell, str):
                draw.text((x + 12, top + r * row_h + 8), cell, font=sans, fill=0)
            else:
                box(x + 48, top + r * row_h + 5, cell)
            x += widths[c]
    page = page.filter(ImageFilter.GaussianBlur(0.7))
    page.save(os.path.join(FIXTURES, "form-check-boxes.png"), optimize=True)


def make_tiff() -> None:
    """A two-page TIFF (pages of different sizes), to check that every page of a TIFF is read."""
    pages = [Image.fromarray(generate_page(s).image) for s in (40, 41)]
    pages = [p.resize((p.width // 3, p.height // 3)) for p in pages]
    pages[0].save(os.path.join(FIXTURES, "two-pages.tiff"), save_all=True, append_images=pages[1:], compression="tiff_deflate")


if __name__ == "__main__":
    make_samples()
    make_fixtures(range(100, 108))
    make_tiff()
    make_form()
