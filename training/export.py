"""Export a training checkpoint (train.py's or train_line.py's) to the contract's folder (config.json,
model.safetensors, tokenizer.json).

    /usr/bin/python3 export.py /tmp/saccade-train/<run>/last.pt ../assets/models/saccade-ocr-tiny \
        [--glyph-head runs/<run>/glyph_head.safetensors]

The glyph head (saccade/glyphs.py) is trained beside the model and never part of it; --glyph-head keeps it
for the next run (train.py --init-glyph-head), which otherwise starts it from scratch.
"""
import argparse

import torch

from saccade.checkpoint import export, load_state
from saccade.line_model import LineOCR
from saccade.model import SaccadeOCR
from saccade.safetensors_io import save_file


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint")
    p.add_argument("out_dir")
    p.add_argument("--glyph-head", default=None, help="also write the checkpoint's glyph head here")
    args = p.parse_args()
    state = torch.load(args.checkpoint, map_location="cpu")  # a GPU run's checkpoint exports anywhere
    config = state["config"]
    model = LineOCR(config) if config.get("format_version") == 4 else SaccadeOCR(config)
    load_state(model, state["model"])
    export(model, args.out_dir)
    if args.glyph_head:
        if state.get("glyph_head") is None:
            raise SystemExit(f"{args.checkpoint} was trained without the glyph head")
        save_file(state["glyph_head"], args.glyph_head)
    print(f"exported step {state['step']} to {args.out_dir}")


if __name__ == "__main__":
    main()
