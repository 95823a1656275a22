"""Cache the frozen line encoder's output for generated single-line text regions (training data for the
line decoder, train_line.py): the encoder runs once per line instead of once per step.

    /usr/bin/python3 line_features.py --first-seed 0 --lines 20000 --procs 2 --out /tmp/saccade-lines
    /usr/bin/python3 line_features.py --first-seed 500000000 --lines 8000 --german-share 1 --out /tmp/saccade-lines

Each shard (`shard-<first seed>.pt`) holds, per line, its seed, target text, and the encoder's neck
[T, 120] and backbone [T, 480] (PP-OCRv6's: 384) features and folded CTC distribution [T, vocab + 2], all
float16; --encoder names the encoder (a cache holds one encoder's output). Seeds are
the generator's training seeds (below EVAL_SEED_BASE); a region whose target spans lines, or holds more
than --max-chars characters, is skipped. --german-share sets the generator's share of German crops
(saccade/synth/corpus.py), --mono-share its share of monospaced faces (saccade/synth/fonts.py; 0.15 unless
given), --typewriter-ones the share of monospaced crops that strike their ones with "l" and --quotes how
crops print their quotes (both saccade/synth/text_blocks.py); give each setting a seed range of its own, so
a seed names one region.
"""
import argparse
import multiprocessing as mp
import os
import time

import torch

from saccade.line_reader import LineReader
from saccade.config import VOCAB_SIZE
from saccade.data import is_single_line
from saccade.line_model import ENCODERS, load_encoder
from saccade.synth import corpus, fonts, generate_region, text_blocks


def load_reader(kind):
    config, state, charset = load_encoder(kind)
    encoder = ENCODERS[kind](config)
    encoder.load_state_dict(state)
    return LineReader(encoder, charset, VOCAB_SIZE)


def make_shard(args):
    first, count, out, max_chars, max_width, german_share, mono_share, typewriter_ones, quotes, kind = args
    path = os.path.join(out, f"shard-{first:09d}.pt")
    if os.path.exists(path):
        return path
    torch.set_num_threads(1)
    corpus.set_german_share(german_share)
    if mono_share is not None:
        fonts.set_mono_share(mono_share)
    text_blocks.set_typewriter_ones(typewriter_ones)
    text_blocks.set_quotes(quotes)
    reader = load_reader(kind)
    rows = {"seed": [], "target": [], "neck": [], "backbone": [], "ctc": []}
    for seed in range(first, first + count):
        region = generate_region(seed, kind="text")
        if not is_single_line(region) or len(region.target) > max_chars:
            continue
        f = reader.features(region.image, max_width)
        rows["seed"].append(seed)
        rows["target"].append(region.target)
        for key in ("neck", "backbone", "ctc"):
            rows[key].append(f[key].half())
    torch.save(rows, path + ".tmp")
    os.replace(path + ".tmp", path)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--lines", type=int, default=20000, help="regions generated (about 78%% are single lines)")
    p.add_argument("--shard", type=int, default=500)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--max-chars", type=int, default=160)
    p.add_argument("--max-width", type=int, default=1600)
    p.add_argument("--german-share", type=float, default=0.0)
    p.add_argument("--mono-share", type=float, default=None)
    p.add_argument("--typewriter-ones", type=float, default=0.0)
    p.add_argument("--quotes", choices=("any", "by-face"), default="any")
    p.add_argument("--encoder", choices=sorted(ENCODERS), default="pp_ocrv4", help="the encoder whose output is cached")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    jobs = [(s, min(args.shard, args.first_seed + args.lines - s), args.out, args.max_chars, args.max_width,
             args.german_share, args.mono_share, args.typewriter_ones, args.quotes, args.encoder)
            for s in range(args.first_seed, args.first_seed + args.lines, args.shard)]
    start = time.time()
    with mp.get_context("spawn").Pool(args.procs) as pool:
        for i, path in enumerate(pool.imap_unordered(make_shard, jobs)):
            print(f"[{time.time() - start:6.0f}s] {i + 1}/{len(jobs)} {os.path.basename(path)}", flush=True)


if __name__ == "__main__":
    main()
