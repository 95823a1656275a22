"""Region crops from the real development set (evaluation only; never used for training).

Text lines are cut with their ground-truth boxes plus a small margin, since generated training regions
carry margins around their ink and a crop flush with the glyphs is a shape the model never saw.
"""
import glob
import html
import json
import os
import re

import cv2

LINE_MARGIN = 0.2  # of the line height, on every side
# The image formats the app takes; a source may store its pages in any of them.
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff")


def _gray(path):
    return cv2.imread(path, cv2.IMREAD_GRAYSCALE)


def image_of(folder, stem):
    """The grey page `stem` of `folder`, in whichever of the app's formats it is stored."""
    for name in sorted(os.listdir(folder)):
        base, ext = os.path.splitext(name)
        if base == stem and ext.lower() in IMAGE_EXTENSIONS:
            return _gray(os.path.join(folder, name))
    raise FileNotFoundError(f"{folder} has no image {stem} ({', '.join(IMAGE_EXTENSIONS)})")


def _crop(img, x0, y0, x1, y1):
    h = y1 - y0
    m = int(round(LINE_MARGIN * h))
    H, W = img.shape
    return img[max(0, y0 - m):min(H, y1 + m), max(0, x0 - m):min(W, x1 + m)]


def _every(items, limit):
    """A deterministic spread of at most `limit` items over the whole list."""
    if limit is None or len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def scribe_lines(root, limit=None):
    folder = os.path.join(root, "scribe-ocr-benchmark")
    lines = []
    for hocr in sorted(glob.glob(os.path.join(folder, "gt_hocr", "*.hocr"))):
        stem = os.path.splitext(os.path.basename(hocr))[0]
        text = open(hocr, encoding="utf-8").read()
        page = None
        for m in re.finditer(r"class='ocr_line'[^>]*title=\"bbox (\d+) (\d+) (\d+) (\d+)[^\"]*\"(.*?)(?=class='ocr_line'|$)",
                             text, re.S):
            words = re.findall(r"class='ocrx_word'[^>]*>([^<]*)<", m.group(5))
            truth = " ".join(html.unescape(w).strip() for w in words if w.strip())
            x0, y0, x1, y1 = map(int, m.group(1, 2, 3, 4))
            if not truth or y1 - y0 < 8 or x1 - x0 < 8:
                continue
            lines.append((stem, (x0, y0, x1, y1), truth))
    out = []
    cache = {}
    for stem, box, truth in _every(lines, limit):
        if stem not in cache:
            cache = {stem: image_of(os.path.join(folder, "images"), stem)}
        out.append((_crop(cache[stem], *box), truth))
    return out


def sroie_lines(root, limit=None):
    folder = os.path.join(root, "sroie-receipts")
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "gt_box", "*.csv"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding="utf-8", errors="replace") as f:
            for row in f:
                parts = row.rstrip("\n").split(",", 8)
                if len(parts) < 9 or not parts[8].strip():
                    continue
                xs, ys = list(map(int, parts[0:8:2])), list(map(int, parts[1:8:2]))
                lines.append((stem, (min(xs), min(ys), max(xs), max(ys)), parts[8].strip()))
    out = []
    cache = {}
    for stem, box, truth in _every(lines, limit):
        if stem not in cache:
            cache = {stem: image_of(os.path.join(folder, "images"), stem)}
        out.append((_crop(cache[stem], *box), truth))
    return out


def chinese_lines(root, limit=None):
    """Text lines of OmniDocBench's Simplified Chinese pages: lines of plain text (no inline formula) on pages
    whose image has the ground truth's orientation, scaled from its page size to the image's."""
    folder = os.path.join(root, "omnidocbench-demo")
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "gt_json", "*.json"))):
        page = json.load(open(path, encoding="utf-8"))
        info = page["page_info"]
        if info.get("page_attribute", {}).get("language") != "simplified_chinese":
            continue
        stem = os.path.splitext(os.path.basename(path))[0]
        for block in page["layout_dets"]:
            if block.get("ignore") or block.get("category_type") not in ("text_block", "title"):
                continue
            for line in block.get("line_with_spans", []):
                if line.get("category_type") != "text_span" or not line.get("text", "").strip():
                    continue
                xs, ys = line["poly"][0::2], line["poly"][1::2]
                lines.append((stem, (info["width"], info["height"]), (min(xs), min(ys), max(xs), max(ys)),
                              line["text"].strip()))
    out = []
    cache = {}
    for stem, size, box, truth in _every(lines, limit):
        if stem not in cache:
            cache = {stem: image_of(os.path.join(folder, "images"), stem)}
        H, W = cache[stem].shape
        sx, sy = W / size[0], H / size[1]
        if abs(sx - sy) > 0.05 * sx:  # the image is the page turned: the boxes do not fit it
            continue
        x0, y0, x1, y1 = (int(round(v)) for v in (box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy))
        if y1 - y0 >= 8 and x1 - x0 >= 8:
            out.append((_crop(cache[stem], x0, y0, x1, y1), truth))
    return out


def pubtabnet_tables(root, limit=None):
    folder = os.path.join(root, "pubtabnet-examples")
    out = []
    for path in _every(sorted(glob.glob(os.path.join(folder, "gt_html", "examples", "*.html"))), limit):
        stem = os.path.splitext(os.path.basename(path))[0]
        out.append((image_of(os.path.join(folder, "images", "examples"), stem), open(path).read()))
    return out


def im2latex_formulas(root, limit=None):
    folder = os.path.join(root, "im2latex-sample")
    out = []
    for path in _every(sorted(glob.glob(os.path.join(folder, "gt_latex", "*.tex"))), limit):
        stem = os.path.splitext(os.path.basename(path))[0]
        out.append((image_of(os.path.join(folder, "images"), stem), open(path).read().strip()))
    return out
