"""Gradient and weight norms per part of the model on one training batch, and the scale of the image
embeddings against the text embeddings: the check that the vision path is learning at all.

    /usr/bin/python3 grad_share.py ../assets/models/saccade-ocr-tiny
"""
import argparse

import torch

from saccade.checkpoint import load
from saccade.data import RegionStream
from saccade.loss import batch_loss
from saccade.synth import generate_region


def one_batch(config, seed=900_000_000):
    """One training batch of fresh regions (seeds outside the training range)."""
    return next(iter(RegionStream(generate_region, config, first_seed=seed, token_budget=1536, max_target_tokens=240)))


def image_embedding_rms(model, batch):
    with torch.no_grad():
        return float(torch.cat(model.encode_images(batch["patches"], batch["grids"])).pow(2).mean().sqrt())


def part_of(name):
    head = name.split(".")
    return ".".join(head[:2]) if head[0] in ("vision", "model") else head[0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model_dir")
    p.add_argument("--seed", type=int, default=900_000_000, help="first region seed of the batch")
    args = p.parse_args()
    torch.set_num_threads(1)
    model = load(args.model_dir)
    model.train()
    batch = one_batch(model.config, args.seed)
    loss, ar, diff = batch_loss(model, batch)[:3]
    loss.backward()
    norms = {}
    for name, param in model.named_parameters():
        g, w = norms.setdefault(part_of(name), [0.0, 0.0]), param
        g[0] += float(w.grad.norm() ** 2) if w.grad is not None else 0.0
        g[1] += float(w.detach().norm() ** 2)
    print(f"loss {float(loss):.3f} (ar {float(ar):.3f}, diffusion {float(diff):.3f})")
    for part, (g, w) in norms.items():
        print(f"{part:24s} grad {g ** 0.5:9.4f}   weights {w ** 0.5:8.2f}")
    text = model.model.embed_tokens.weight.detach()
    print(f"image embedding RMS {image_embedding_rms(model, batch):.3f}, "
          f"text embedding RMS {float(text.pow(2).mean().sqrt()):.3f}")


if __name__ == "__main__":
    main()
