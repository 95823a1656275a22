"""Write sample regions and pages as PNG + JSON for looking at: python3 -m saccade.synth.preview --out DIR --n 12

Word boxes are drawn on a second copy of each region (`*_boxes.png`) to check their placement by eye.
"""

import argparse
import json
import os

import cv2

from . import generate_page, generate_region


def _with_boxes(image, items, color=(0, 0, 255)):
    out = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    for _, (x0, y0, x1, y1) in items:
        cv2.rectangle(out, (x0, y0), (x1 - 1, y1 - 1), color, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--n", type=int, default=12, help="number of regions (pages: a quarter of it, at least 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kind", choices=("text", "table", "formula"), default=None)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for seed in range(args.seed, args.seed + args.n):
        region = generate_region(seed, args.kind)
        stem = os.path.join(args.out, f"region_{seed:05d}_{region.kind}")
        cv2.imwrite(stem + ".png", region.image)
        cv2.imwrite(stem + "_boxes.png", _with_boxes(region.image, region.words))
        with open(stem + ".json", "w", encoding="utf-8") as f:
            json.dump(dict(seed=seed, kind=region.kind, target=region.target, words=region.words), f,
                      ensure_ascii=False, indent=1)
    for seed in range(args.seed, args.seed + max(1, args.n // 4)):
        page = generate_page(seed)
        stem = os.path.join(args.out, f"page_{seed:05d}")
        cv2.imwrite(stem + ".png", page.image)
        cv2.imwrite(stem + "_layout.png", _with_boxes(page.image, [(r["kind"], r["box"]) for r in page.regions],
                                                      (0, 160, 0)))
        with open(stem + ".json", "w", encoding="utf-8") as f:
            json.dump(dict(seed=seed, regions=page.regions), f, ensure_ascii=False, indent=1)
    print(f"wrote samples to {args.out}")


if __name__ == "__main__":
    main()
