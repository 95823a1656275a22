"""PP-OCRv6 small's text detector against ours, with one reader for both (docs/decisions/0053).

    node --import tsx scripts/detector-lines.ts /tmp/ours.json
    .venv-rapidocr/bin/python scripts/compare_detectors.py /tmp/ours.json [--side 1280]

Each page's lines, ours (from detector-lines.ts) and PP-OCRv6 small's (RapidOCR's detector on one thread, at
its own default resolution or with `--side N` at a longest side of N pixels, as ours runs), are read by the same
reader: RapidOCR's direction classifier and PP-OCRv6 small's recogniser, its crops and its score filter. So the
figures differ by the detector alone. Per source: word F1 (order-insensitive, SROIE without case, as
`npm run eval` scores), lines lost (a ground-truth line of three words or more most of whose words are nowhere
in the output), lines found per page, the detector's time per page, and where the truth places its words
(scribe, FUNSD) the share of them whose centre lies inside a detected line. Prints one JSON object.
"""
import argparse
import collections
import json
import sys
import time

import cv2
import numpy as np
from rapidocr import RapidOCR


def words(text, fold):
    return (text.lower() if fold else text).split()


def read(engine, image, quads):
    if not quads:
        return ''
    crops = engine.crop_text_regions(image, np.array(quads, dtype=np.float32))
    crops, _ = engine.cls_and_rotate(crops)
    rec = engine.recognize_txt(crops)
    return '\n'.join(t for t, s in zip(rec.txts, rec.scores) if s >= engine.text_score and t.strip())


def inside_a_line(quads, truth_words, sx, sy):
    polygons = [np.array(q, dtype=np.float32) for q in quads]
    hits = 0
    for w in truth_words:
        b = w['box']
        centre = ((b['x0'] + b['x1']) / 2 / sx, (b['y0'] + b['y1']) / 2 / sy)
        hits += any(cv2.pointPolygonTest(p, centre, False) >= 0 for p in polygons)
    return hits


def tally_page(t, page, quads, ms, text):
    fold = page['dataset'] == 'sroie'
    truth = page['truth']
    expected = collections.Counter(words(truth, fold))
    predicted = words(text, fold)
    t['expected'] += sum(expected.values())
    t['predicted'] += len(predicted)
    for w in predicted:
        if expected[w] > 0:
            expected[w] -= 1
            t['matched'] += 1
    seen = set(predicted)
    for line in truth.split('\n'):
        ws = words(line, fold)
        if len(ws) >= 3:
            t['lines'] += 1
            t['lost'] += sum(w in seen for w in ws) * 2 < len(ws)
    t['found'] += len(quads)
    t['ms'] += ms
    t['pages'] += 1
    if page['truthWords'] and page['truthSize']:
        sx = page['truthSize']['width'] / page['size']['width']
        sy = page['truthSize']['height'] / page['size']['height']
        t['truth_words'] += len(page['truthWords'])
        t['truth_words_in_a_line'] += inside_a_line(quads, page['truthWords'], sx, sy)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('ours')
    parser.add_argument('--side', type=int, default=0, help='run the peer at this longest side (default: its own)')
    args = parser.parse_args()
    pages = json.load(open(args.ours))
    params = {'Global.log_level': 'error', 'EngineConfig.onnxruntime.intra_op_num_threads': 1,
              'EngineConfig.onnxruntime.inter_op_num_threads': 1}
    if args.side:
        params.update({'Det.limit_side_len': args.side, 'Det.limit_type': 'max'})
    engine = RapidOCR(params=params)
    detector = engine._load_det_model()
    peer = f'PP-OCRv6 small, longest side {args.side}' if args.side else 'PP-OCRv6 small, its default size'
    tallies = collections.defaultdict(lambda: collections.defaultdict(float))
    for page in pages:
        image = cv2.imread(page['image'])
        started = time.perf_counter()
        found = detector(image)
        ms = (time.perf_counter() - started) * 1000
        theirs = [] if found.boxes is None else found.boxes.tolist()
        for name, quads, took in (('ours (PP-OCRv4 mobile)', page['quads'], page['ms']), (peer, theirs, ms)):
            tally_page(tallies[(page['dataset'], name)], page, quads, took, read(engine, image, quads))
        print(f"{page['dataset']}/{page['name']}: {len(page['quads'])} and {len(theirs)} lines", file=sys.stderr, flush=True)
    out = {}
    for (source, name), t in sorted(tallies.items()):
        precision = t['matched'] / max(1, t['predicted'])
        recall = t['matched'] / max(1, t['expected'])
        row = {'word_f1': round(2 * precision * recall / max(1e-9, precision + recall), 4),
               'lines_lost': round(t['lost'] / max(1, t['lines']), 4),
               'lines_found_per_page': round(t['found'] / t['pages'], 1),
               'detector_ms_per_page': round(t['ms'] / t['pages'])}
        if t['truth_words']:
            row['truth_words_in_a_line'] = round(t['truth_words_in_a_line'] / t['truth_words'], 4)
        out.setdefault(source, {})[name] = row
    print(json.dumps(out, indent=1))


if __name__ == '__main__':
    main()
