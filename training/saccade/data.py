"""Training samples from generated regions, batched by token budget inside DataLoader workers."""
import random

import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

from .glyphs import glyph_targets
from .looking import look_targets
from .masks import build_sample, collate
from .preprocess import patchify, preprocess
from .tokenizer import Tokenizer
from .vocab import PROMPTS

EVAL_SEED_BASE = 1_000_000_000
"""Evaluation regions use seeds from here up; training seeds stay below, so the two never meet."""


def is_single_line(region):
    """A generated text region a line model reads: one line of text."""
    return region.kind == "text" and "\n" not in region.target and bool(region.target.strip())


def single_text_lines(first_seed, n):
    """The first n single-line text regions from first_seed up, as (seed, region)."""
    from .synth import generate_region

    out, seed = [], first_seed
    while len(out) < n:
        region = generate_region(seed, kind="text")
        if is_single_line(region):
            out.append((seed, region))
        seed += 1
    return out


def encode_region(image, target, kind, config, tokenizer, generator, offset=None, chars=None):
    """A generated region -> one three-stream training sample with its image patches, and the glyph and look
    targets (glyphs.py, looking.py) when `chars` (the generator's character boxes) are given."""
    vc = config["vision_config"]
    pixels = preprocess(image, config["image"])
    patches, grid = patchify(pixels, vc["patch_size"])
    m = vc["merge_size"]
    target_ids = tokenizer.encode(target)
    cells = (grid[0] // m, grid[1] // m)
    sample = build_sample(*cells, PROMPTS[kind], target_ids, config["diffusion_block_size"], generator, offset)
    sample["patches"], sample["grid"] = patches, grid
    sample["glyphs"] = glyph_targets(chars, np.shape(image)[:2], cells, tokenizer)
    sample["looks"] = look_targets(chars, np.shape(image)[:2], cells, target_ids, tokenizer, sample)
    return sample


def collate_with_images(samples):
    batch = collate(samples)
    batch["patches"] = [s["patches"] for s in samples]
    batch["grids"] = [s["grid"] for s in samples]
    batch["glyphs"] = [s["glyphs"] for s in samples]
    batch["looks"] = [s["looks"] for s in samples]
    batch["layout"] = [(s["prefix_len"], s["stream_len"]) for s in samples]
    return batch


def to_device(batch, device):
    """The batch with every tensor, also those inside its lists, on `device` (absent targets stay None)."""
    def move(value):
        if isinstance(value, torch.Tensor):
            return value.to(device, non_blocking=True)
        if isinstance(value, list):
            return [move(v) for v in value]
        return value
    return {key: move(value) for key, value in batch.items()}


class RegionStream(IterableDataset):
    """Endless batches. Each worker draws seeds first_seed + worker + k * workers, so workers never repeat
    each other; a pool of samples is sorted by length and cut into batches of at most `token_budget`
    padded tokens, which keeps padding low when short text lines and long tables mix."""

    def __init__(self, generate, config, first_seed, token_budget=4096, max_batch=48, pool=64,
                 max_target_tokens=480, kind_caps=None):
        self.generate, self.config, self.first_seed = generate, config, first_seed
        self.token_budget, self.max_batch, self.pool = token_budget, max_batch, pool
        # Longer targets are skipped; kind_caps ({kind: tokens}) overrides the cap for some kinds: most
        # generated tables are longer than a text line's cap.
        self.max_target_tokens, self.kind_caps = max_target_tokens, kind_caps or {}

    def __iter__(self):
        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info else (0, 1)
        tokenizer = Tokenizer()
        seed = self.first_seed + worker
        generator = torch.Generator().manual_seed(seed)
        shuffle = random.Random(seed)
        while True:
            samples = []
            while len(samples) < self.pool:
                region = self.generate(seed)
                seed += workers
                ids_len = len(tokenizer.encode(region.target))
                if ids_len > self.kind_caps.get(region.kind, self.max_target_tokens):
                    continue
                samples.append(encode_region(region.image, region.target, region.kind, self.config,
                                             tokenizer, generator, chars=region.chars))
            samples.sort(key=lambda s: len(s["input_ids"]))
            batches, current = [], []
            for s in samples:
                longest = len(s["input_ids"])  # sorted, so the newest is the longest
                if current and (longest * (len(current) + 1) > self.token_budget
                                or len(current) >= self.max_batch):
                    batches.append(current)
                    current = []
                current.append(s)
            batches.append(current)
            shuffle.shuffle(batches)
            for b in batches:
                yield collate_with_images(b)
