"""Export a training checkpoint to the contract's folder (config.json, fp16 model.safetensors, tokenizer.json).

    /usr/bin/python3 export.py /tmp/saccade-train/<run>/last.pt ../assets/models/saccade-ocr-tiny
"""
import argparse

import torch

from saccade.checkpoint import export
from saccade.model import SaccadeOCR


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint")
    p.add_argument("out_dir")
    args = p.parse_args()
    state = torch.load(args.checkpoint)
    model = SaccadeOCR(state["config"])
    model.load_state_dict(state["model"])
    export(model, args.out_dir)
    print(f"exported step {state['step']} to {args.out_dir}")


if __name__ == "__main__":
    main()
