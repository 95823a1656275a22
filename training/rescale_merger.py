"""Rescale the patch merger's output in a training checkpoint, and restart the optimizer state of the
vision path.

Image embeddings enter the decoder's residual stream and every decoder layer normalises its input (RMSNorm),
so their scale does not change what a layer sees, but the gradient reaching the merger and the vision
encoder is divided by it. In tiny-v2 the merger's output had grown to an RMS of ~550 (text embeddings:
~0.1) while the decoder wrote corpus text for every image. Scaling fc2 by target / rms brings the embeddings back to `target` without
touching anything else; Adam's moments of the vision path are reset because its gradients change scale by
the same factor. (In tiny-v2 the scale grew back within a few hundred steps: see runs/tiny-v2/README.md.)

    /usr/bin/python3 rescale_merger.py /tmp/saccade-train/tiny-v2/last.pt --target 1.0
"""
import argparse

import torch

from grad_share import image_embedding_rms, one_batch
from saccade.model import SaccadeOCR


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint")
    p.add_argument("--target", type=float, default=1.0, help="RMS of the image embeddings afterwards")
    args = p.parse_args()
    state = torch.load(args.checkpoint)
    model = SaccadeOCR(state["config"])
    model.load_state_dict(state["model"])
    batch = one_batch(model.config)
    before = image_embedding_rms(model, batch)
    scale = args.target / before
    with torch.no_grad():
        model.merger.fc2.weight.mul_(scale)
        model.merger.fc2.bias.mul_(scale)
    after = image_embedding_rms(model, batch)
    state["model"] = model.state_dict()
    names = [n for n, _ in model.named_parameters()]
    reset = [i for i, n in enumerate(names) if n.startswith(("vision.", "merger."))]
    for i in reset:
        state["optimizer"]["state"].pop(i, None)
    torch.save(state, args.checkpoint)
    print(f"image embedding RMS {before:.3f} -> {after:.3f}; optimizer state reset for {len(reset)} tensors")


if __name__ == "__main__":
    main()
