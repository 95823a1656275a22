"""What a training launch records in its run folder beside its logs."""
import json
import os
import shlex
import sys
import time

import torch

from .synth import inputs


def record_launch(run_dir: str) -> None:
    """Appends the exact command (the interpreter that ran it, and its PyTorch) to `command.txt` and the generator's inputs (`synth/inputs.py`) to
    `inputs.jsonl`; says on stderr when this machine lacks some of the pinned files, since the run's regions
    then differ from those the same seeds give elsewhere."""
    now = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
    with open(os.path.join(run_dir, "command.txt"), "a") as f:
        f.write(f"{now} cd training && {sys.executable} " + " ".join(shlex.quote(a) for a in sys.argv)
                + f"  # torch {torch.__version__}\n")
    found = inputs.report()
    with open(os.path.join(run_dir, "inputs.jsonl"), "a") as f:
        f.write(json.dumps({"time": now, **found}) + "\n")
    for kind, r in found.items():
        if r["found"] < r["pinned"]:
            print(f"warning: {r['pinned'] - r['found']} of {r['pinned']} pinned {kind} files are missing here "
                  f"(first: {r['missing'][0]}); this run's regions differ from the pinned machine's",
                  file=sys.stderr)
