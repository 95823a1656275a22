"""Writes the fixed evaluation set of `npm run bench`: synthetic regions of each type (with word boxes, for the
fixation hit rate) and, when the real development data is present, real crops cut with their ground truth.

    /usr/bin/python3 scripts/make_bench_regions.py --out DIR [--per-type N] [--real N] [--data DIR]

Each region becomes DIR/<id>.u8 (8-bit grayscale, row-major) plus an entry in DIR/index.json.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "training"))

from saccade.data import EVAL_SEED_BASE, single_text_lines  # noqa: E402
from saccade.real_dev import im2latex_formulas, pubtabnet_tables, scribe_lines, sroie_lines  # noqa: E402
from saccade.synth import generate_region  # noqa: E402

# Offset inside the evaluation seed range, so the bench set is fixed and distinct from model:eval's samples.
BENCH_SEED_BASE = EVAL_SEED_BASE + 500_000


def write(out, entries, rid, kind, source, image, target, words=()):
    image.tofile(os.path.join(out, rid + ".u8"))
    entries.append({
        "id": rid, "kind": kind, "source": source, "width": int(image.shape[1]), "height": int(image.shape[0]),
        "target": target, "words": [[w, *map(int, box)] for w, box in words],
    })


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--per-type", type=int, default=6)
    p.add_argument("--real", type=int, default=6, help="crops per real set")
    p.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "real-dev"))
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    entries = []
    # Text as the pipeline hands it to the model: one line at a time (the shipped model reads lines).
    for i, (_, r) in enumerate(single_text_lines(BENCH_SEED_BASE, a.per_type)):
        write(a.out, entries, f"syn-text-{i}", "text", "synthetic", r.image, r.target, r.words)
    for t, kind in enumerate(("table", "formula"), start=1):
        for i in range(a.per_type):
            r = generate_region(BENCH_SEED_BASE + t * 10_000 + i, kind)
            write(a.out, entries, f"syn-{kind}-{i}", kind, "synthetic", r.image, r.target, r.words)
    if os.path.isdir(a.data) and a.real > 0:
        real = [("scribe", "text", scribe_lines), ("sroie", "text", sroie_lines),
                ("pubtabnet", "table", pubtabnet_tables), ("im2latex", "formula", im2latex_formulas)]
        for name, kind, load in real:
            for i, (image, truth) in enumerate(load(a.data, limit=a.real)):
                write(a.out, entries, f"{name}-{i}", kind, name, image, truth)
    else:
        print(f"bench: no real development data at {a.data}; synthetic regions only", file=sys.stderr)
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump(entries, f)
    print(f"bench: wrote {len(entries)} regions to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
