import functools

import torch

from saccade.data import RegionStream, to_device
from saccade.masks import IGNORE
from saccade.synth import generate_region
from saccade.tokenizer import Tokenizer
from tiny import tiny_config


def test_a_kind_cap_lets_longer_tables_through_and_still_skips_long_text():
    tokenizer, made = Tokenizer(), []

    def generate(seed):
        region = generate_region(seed, shares={"text": 0.5, "table": 0.5})
        made.append((region.kind, len(tokenizer.encode(region.target))))
        return region

    pool = 16
    stream = iter(RegionStream(generate, tiny_config(), first_seed=123, pool=pool, max_target_tokens=40,
                               kind_caps={"table": 400}))
    lengths = []
    while len(lengths) < pool:
        batch = next(stream)
        lengths += [int((row != IGNORE).sum()) - 1 for row in batch["ar_labels"]]  # the target, less EOS
    kept = [(kind, n) for kind, n in made if n <= (400 if kind == "table" else 40)]
    assert sorted(lengths) == sorted(n for _, n in kept)
    assert any(kind == "table" and n > 40 for kind, n in kept)
    assert any(kind == "text" and n > 40 for kind, n in made), "no long text line was generated to be skipped"


def test_to_device_moves_every_tensor_of_a_batch_also_inside_lists():
    generate = functools.partial(generate_region, shares={"text": 1.0})
    batch = next(iter(RegionStream(generate, tiny_config(), first_seed=7, pool=4)))
    batch["looks"][0] = None  # a region whose characters did not pair with its target
    moved = to_device(batch, "meta")
    assert moved.keys() == batch.keys()
    for key, value in moved.items():
        if isinstance(value, torch.Tensor):
            assert value.is_meta and value.shape == batch[key].shape, key
        elif key in ("patches", "glyphs", "looks"):
            assert all(v is None or v.is_meta for v in value), key
            assert [v is None for v in value] == [v is None for v in batch[key]], key
    assert moved["grids"] == batch["grids"]
