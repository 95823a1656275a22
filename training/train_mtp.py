"""Train an MTP head (saccade/mtp.py) onto an exported model, its trunk frozen, and export the model with it.

The trunk's weights are not touched, so the model's own output (AR, self-spec, diffusion) stays what it was;
only MTP speculation gains. Resumable from --ckpt-dir like train.py; the learning rate follows wall-clock
time (warm-up, then cosine to 10% at --minutes).

    /usr/bin/python3 train_mtp.py --name mtp-v1 --model ../assets/models/saccade-ocr-tiny --minutes 60 \
        --out /tmp/mtp-v1-export
"""
import argparse
import functools
import json
import math
import os
import signal
import time

import torch
from torch.utils.data import DataLoader

from saccade.checkpoint import export, load
from saccade.data import RegionStream
from saccade.launch import record_launch
from saccade.model import MtpHead
from saccade.mtp import DRAFTS, mtp_loss
from saccade.synth import corpus, generate_region
from train import parse_shares

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--name", required=True, help="run name: logs go to training/runs/<name>/")
    p.add_argument("--model", required=True, help="exported model folder whose trunk the head is trained on")
    p.add_argument("--out", required=True, help="where the model with its head is exported at the end")
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--depth", type=int, default=DRAFTS, help="chain depth trained (drafts a round can reach)")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--token-budget", type=int, default=2048)
    p.add_argument("--max-target-tokens", type=int, default=512)
    p.add_argument("--kind-shares", type=parse_shares, default="text:0.85,table:0.1,formula:0.05")
    p.add_argument("--unpredictable-share", type=float, default=0.7)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--ckpt-dir", default=None, help="default /tmp/saccade-train/<name>")
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    run_dir = os.path.join(HERE, "runs", args.name)
    ckpt_dir = args.ckpt_dir or os.path.join("/tmp/saccade-train", args.name)
    os.makedirs(run_dir, exist_ok=True)
    os.makedirs(ckpt_dir, exist_ok=True)
    record_launch(run_dir)

    model = load(args.model)
    model.config["text_config"]["num_mtp_layers"] = 1
    model.mtp = MtpHead(model.config["text_config"])
    model.mtp.apply(model._init)
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith("mtp.")
    opt = torch.optim.AdamW(model.mtp.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    step, elapsed, samples = 0, 0.0, 0
    ckpt = os.path.join(ckpt_dir, "last.pt")
    if os.path.exists(ckpt):
        state = torch.load(ckpt)
        model.mtp.load_state_dict(state["mtp"])
        opt.load_state_dict(state["optimizer"])
        step, elapsed, samples = state["step"], state["elapsed"], state["samples"]
        print(f"resumed at step {step}, {elapsed / 60:.1f} min", flush=True)

    generate = functools.partial(generate_region, shares=args.kind_shares)
    stream = RegionStream(generate, model.config, first_seed=300_000_000 + args.seed * 10_000_000 + step * 64,
                          token_budget=args.token_budget, max_target_tokens=args.max_target_tokens)
    loader = DataLoader(stream, batch_size=None, num_workers=args.workers, prefetch_factor=4,
                        worker_init_fn=functools.partial(corpus.set_unpredictable_share, args.unpredictable_share))
    log = open(os.path.join(run_dir, "log.jsonl"), "a")
    t0, last_save = time.time() - elapsed, time.time()
    window, window_t = [], time.time()

    def save():
        torch.save({"mtp": model.mtp.state_dict(), "optimizer": opt.state_dict(), "step": step,
                    "elapsed": time.time() - t0, "samples": samples}, ckpt + ".tmp")
        os.replace(ckpt + ".tmp", ckpt)

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    model.eval()  # no dropout anywhere; eval keeps the frozen trunk's behaviour exactly the decoders'
    for batch in loader:
        minutes = (time.time() - t0) / 60
        if minutes >= args.minutes or stop:
            break
        warm = min(1.0, (step + 1) / args.warmup)
        lr = args.lr * warm * (0.1 + 0.45 * (1 + math.cos(math.pi * min(1.0, minutes / args.minutes))))
        for g in opt.param_groups:
            g["lr"] = lr
        loss, per_depth = mtp_loss(model, batch, args.depth)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.mtp.parameters(), 1.0)
        opt.step()
        step += 1
        samples += len(batch["patches"])
        window.append((len(batch["patches"]), per_depth))
        if step % 10 == 0:
            now = time.time()
            rec = {"step": step, "minutes": round(minutes, 2), "samples": samples, "lr": lr,
                   **{f"loss_depth{k + 1}": sum(w[1][k] for w in window) / len(window) for k in range(args.depth)},
                   "samples_per_s": sum(w[0] for w in window) / (now - window_t)}
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(json.dumps(rec), flush=True)
            window, window_t = [], now
        if time.time() - last_save > 300:
            save()
            last_save = time.time()
    save()
    export(model, args.out)
    print(f"done: step {step}, {samples} regions; exported to {args.out}", flush=True)


if __name__ == "__main__":
    main()
