"""Train the Saccade OCR model on generated regions with the dual AR + diffusion objective.

Resumable: re-running the same command continues from the newest checkpoint in --ckpt-dir. The learning
rate follows wall-clock time (warm-up, then cosine to 10% at --minutes), so a run fits a time budget.
--ranks N trains data-parallel in N processes of one thread each (gradients averaged over gloo every step):
on a CPU, one-thread processes scale where one process with more BLAS threads does not.

    /usr/bin/python3 train.py --name tiny-v1 --minutes 70
"""
import argparse
import functools
import json
import math
import os
import random
import signal
import time

import torch
from torch.utils.data import DataLoader

from saccade.config import default_config
from saccade.data import EVAL_SEED_BASE, RegionStream, to_device
from saccade.launch import record_launch
from saccade.loss import batch_loss, image_gain
from saccade.model import MtpHead, SaccadeOCR, count_parameters
from saccade.synth.regions import KIND_SHARES

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--name", required=True, help="run name: logs go to training/runs/<name>/")
    p.add_argument("--minutes", type=float, default=70.0, help="wall-clock training budget")
    p.add_argument("--ckpt-dir", default=None, help="checkpoints (default /tmp/saccade-train/<name>)")
    p.add_argument("--ckpt-every", type=float, default=5.0, help="minutes between checkpoints")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--warmup", type=int, default=60, help="warm-up steps")
    p.add_argument("--token-budget", type=int, default=1536, help="padded tokens per batch")
    p.add_argument("--max-batch", type=int, default=48, help="regions per batch at most")
    p.add_argument("--pool", type=int, default=64,
                   help="regions each loader worker sorts by length before cutting them into batches")
    p.add_argument("--device", default="cpu", help="torch device to train on, e.g. cuda (one rank)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    p.add_argument("--ranks", type=int, default=1, help="data-parallel processes")
    p.add_argument("--layers", type=int, default=4, help="decoder layers")
    p.add_argument("--hidden", type=int, default=192, help="decoder width")
    p.add_argument("--heads", type=int, default=6, help="decoder query heads (head_dim 32)")
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--max-target-tokens", type=int, default=240, help="longer regions are skipped")
    p.add_argument("--max-table-tokens", type=int, default=None,
                   help="the same for tables (default: --max-target-tokens); about half of the generated tables "
                        "are longer than 256 tokens, five in six longer than 128")
    p.add_argument("--vision-layers", type=int, default=3)
    p.add_argument("--merge-size", type=int, default=None,
                   help="patches merged per image token along each side (default: the config's); 1 gives every "
                        "16-pixel patch its own token")
    p.add_argument("--max-image-tokens", type=int, default=None,
                   help="image tokens per region (default: the config's); larger regions are scaled down")
    p.add_argument("--min-height", type=int, default=None,
                   help="regions lower than this many pixels are scaled up to it (default: the config's)")
    p.add_argument("--stem-channels", type=lambda t: [int(c) for c in t.split(",")], default=None,
                   help="channels of the vision encoder's stride-2 convolutions, e.g. 16,32,64,128 (format 3; "
                        "default: a linear patch embedding)")
    p.add_argument("--intermediate", type=int, default=512, help="decoder SwiGLU width")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--glyph-weight", type=float, default=1.0,
                   help="weight of the glyph objective (saccade/glyphs.py) beside the dual loss; 0 turns it off")
    p.add_argument("--look-weight", type=float, default=0.0,
                   help="weight of the look objective (saccade/looking.py): one decoder head attends to the "
                        "cells of the character being written; 0 turns it off")
    p.add_argument("--fixation-keep", type=float, default=0.0,
                   help="train some steps under the engine's pruned attention, each row keeping this share of the "
                        "image tokens in every layer but the focal one (saccade/fixation.py); 0 turns it off")
    p.add_argument("--fixation-focal", type=int, default=3,
                   help="the focal layer: the one with the largest share of attention on the image, which the "
                        "engine's warm-up picks")
    p.add_argument("--fixation-share", type=float, default=0.5, help="share of the steps trained pruned")
    p.add_argument("--mtp-weight", type=float, default=0.0,
                   help="train an MTP head with the model (saccade/mtp.py, the joint recipe): weight of its chain "
                        "loss, whose gradient reaches the trunk too; 0: no head (train_mtp.py adds one afterwards)")
    p.add_argument("--unpredictable-share", type=float, default=None,
                   help="share of text crops showing independent dictionary words instead of prose "
                        "(default corpus.UNPREDICTABLE_SHARE); 1.0 leaves nothing to guess from context")
    p.add_argument("--kind-shares", type=parse_shares, default=None,
                   help="region mix, e.g. text:0.85,table:0.08,formula:0.07 (default: the generator's own mix)")
    p.add_argument("--init-from", default=None,
                   help="exported model folder to start from when no checkpoint exists (the shipped model "
                        "carries training over to a machine whose /tmp checkpoints are gone; optimizer restarts)")
    p.add_argument("--init-glyph-head", default=None,
                   help="with --init-from: the glyph head that export.py --glyph-head kept from the run before; "
                        "a fresh head's first steps pull the vision encoder off what it had learnt")
    args = p.parse_args(argv)
    if args.device != "cpu" and args.ranks != 1:
        p.error("--ranks is for CPU training; on an accelerator one process feeds it")
    return args


def parse_shares(text):
    shares = {}
    for part in text.split(","):
        kind, _, weight = part.partition(":")
        if kind not in KIND_SHARES:
            raise argparse.ArgumentTypeError(f"unknown region kind {kind!r}; known: {', '.join(KIND_SHARES)}")
        shares[kind] = float(weight)
    return shares


def lr_at(args, step, elapsed_min):
    warm = min(1.0, (step + 1) / args.warmup)
    progress = min(1.0, elapsed_min / args.minutes)
    return args.lr * warm * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def latest_checkpoint(ckpt_dir):
    path = os.path.join(ckpt_dir, "last.pt")
    return path if os.path.exists(path) else None


def main(argv=None):
    args = parse_args(argv)
    run_dir = os.path.join(HERE, "runs", args.name)
    os.makedirs(run_dir, exist_ok=True)
    record_launch(run_dir)
    if args.ranks == 1:
        train(0, args)
        return
    # Every rank ignores SIGTERM's default; the parent forwards it so that rank 0 can stop them all cleanly.
    import torch.multiprocessing as mp
    port = 29500 + os.getpid() % 1000
    ctx = mp.start_processes(train, args=(args, port), nprocs=args.ranks, join=False, start_method="spawn")
    signal.signal(signal.SIGTERM, lambda *_: [os.kill(p.pid, signal.SIGTERM) for p in ctx.processes])
    while not ctx.join():
        pass


def train(rank, args, port=None):
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    torch.manual_seed(args.seed)
    distributed = args.ranks > 1
    if distributed:
        import torch.distributed as dist
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=args.ranks)
    run_dir = os.path.join(HERE, "runs", args.name)
    ckpt_dir = args.ckpt_dir or os.path.join("/tmp/saccade-train", args.name)
    os.makedirs(ckpt_dir, exist_ok=True)

    config = default_config(num_layers=args.layers, intermediate_size=args.intermediate,
                            hidden_size=args.hidden, num_attention_heads=args.heads,
                            num_key_value_heads=args.kv_heads)
    config["vision_config"]["num_layers"] = args.vision_layers
    if args.merge_size is not None:
        config["vision_config"]["merge_size"] = args.merge_size
        config["image"]["unit"] = config["vision_config"]["patch_size"] * args.merge_size
    if args.max_image_tokens is not None:
        config["image"]["max_image_tokens"] = args.max_image_tokens
    if args.min_height is not None:
        config["image"]["min_height"] = args.min_height
    if args.stem_channels:
        config["vision_config"]["stem_channels"] = args.stem_channels
        config["format_version"] = 3
    if args.mtp_weight > 0:
        config["text_config"]["num_mtp_layers"] = 1
    model = SaccadeOCR(config)
    tc = config["text_config"]
    # Trained beside the model, never exported (saccade/glyphs.py).
    glyph_head = torch.nn.Linear(tc["hidden_size"], tc["vocab_size"]) if args.glyph_weight > 0 else None
    if glyph_head is not None:
        # Most (cell, character) pairs are absent: starting near that keeps the first steps' loss (200+ nats
        # from zero logits) from swamping the dual loss under the shared gradient clip.
        torch.nn.init.constant_(glyph_head.bias, -math.log(tc["vocab_size"]))
    trained = [model] + ([glyph_head] if glyph_head is not None else [])
    for m in trained:
        m.to(device)
    params = [p for m in trained for p in m.parameters()]
    opt = torch.optim.AdamW(params, lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    step, elapsed, samples_seen = 0, 0.0, 0
    resume = latest_checkpoint(ckpt_dir)
    if resume:
        state = torch.load(resume, map_location=device)
        model.load_state_dict(state["model"])
        had_head = state.get("glyph_head") is not None
        if glyph_head is not None and had_head:
            glyph_head.load_state_dict(state["glyph_head"])
        if (glyph_head is not None) == had_head:
            opt.load_state_dict(state["optimizer"])
        elif rank == 0:  # the optimizer's state belongs to other parameters: it restarts
            print("the glyph head was switched on or off since the checkpoint: optimizer restarted", flush=True)
        step, elapsed, samples_seen = state["step"], state["elapsed"], state["samples"]
        if rank == 0:
            print(f"resumed from {resume} at step {step}, {elapsed / 60:.1f} min", flush=True)
    elif args.init_from:
        from saccade.checkpoint import load
        source = load(args.init_from)
        state, fresh = adapt_state(source.state_dict(), source.config, config)
        missing, unexpected = model.load_state_dict(state, strict=False)
        if unexpected or set(missing) != fresh:
            raise ValueError(f"{args.init_from} does not fit this model: missing {missing}, unexpected {unexpected}")
        if args.init_glyph_head:
            if glyph_head is None:
                raise ValueError("--init-glyph-head with --glyph-weight 0: there is no glyph head to start")
            from saccade.safetensors_io import load_file
            glyph_head.load_state_dict(load_file(args.init_glyph_head))
        if rank == 0:
            print(f"initialised from {args.init_from}"
                  + (f" and {args.init_glyph_head}" if args.init_glyph_head else ""), flush=True)
    if rank == 0:
        print(f"parameters: {count_parameters(model):,}, {args.ranks} rank(s)", flush=True)

    from saccade.synth import corpus, generate_region
    generate = functools.partial(generate_region, shares=args.kind_shares or KIND_SHARES)
    caps = {} if args.max_table_tokens is None else {"table": args.max_table_tokens}
    # Seeds move on with the step count, so a resumed run sees fresh regions; ranks draw far apart.
    stream = RegionStream(generate, config, first_seed=args.seed * 10_000_000 + rank * 5_000_000 + step * 64,
                          token_budget=args.token_budget, max_batch=args.max_batch, pool=args.pool,
                          max_target_tokens=args.max_target_tokens, kind_caps=caps)
    # Rank processes are spawned, so their loader workers are too: they import the corpus afresh.
    share = corpus.UNPREDICTABLE_SHARE if args.unpredictable_share is None else args.unpredictable_share
    loader = DataLoader(stream, batch_size=None, num_workers=args.workers, prefetch_factor=4,
                        pin_memory=device.type == "cuda",
                        persistent_workers=False, worker_init_fn=functools.partial(corpus.set_unpredictable_share, share))
    # image_gain is probed on one fixed batch the run never trains on, so probes compare across steps.
    probe = None
    if rank == 0:
        corpus.set_unpredictable_share(share)
        probe = next(iter(RegionStream(generate, config, first_seed=EVAL_SEED_BASE - 1_000_000,
                                       token_budget=args.token_budget, max_target_tokens=args.max_target_tokens,
                                       kind_caps=caps)))
        probe = to_device(probe, device)
    log = open(os.path.join(run_dir, "log.jsonl"), "a") if rank == 0 else None
    model.train()
    t0 = time.time() - elapsed
    last_ckpt = time.time()
    losses = ("loss", "ar_loss", "diff_loss", "glyph_loss", "look_loss", "mtp_loss")  # the order of stats[1:]

    def new_window(t):
        return {**dict.fromkeys(losses, 0.0), "n": 0, "samples": 0, "pruned": 0, "ar_pruned": 0.0, "t": t}

    window = new_window(time.time())

    def save():
        state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step,
                 "glyph_head": glyph_head.state_dict() if glyph_head is not None else None,
                 "elapsed": time.time() - t0, "samples": samples_seen, "config": config}
        torch.save(state, os.path.join(ckpt_dir, "tmp.pt"))
        os.replace(os.path.join(ckpt_dir, "tmp.pt"), os.path.join(ckpt_dir, "last.pt"))

    # SIGTERM ends the run cleanly: the current step finishes, then the checkpoint is written.
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    for batch in loader:
        # Rank 0's clock and stop decision rule every rank, so all take the same steps at the same rate.
        clock = torch.tensor([(time.time() - t0) / 60, float(bool(stop))], dtype=torch.float64)
        if distributed:
            dist.broadcast(clock, 0)
        elapsed_min = float(clock[0])
        if elapsed_min >= args.minutes or clock[1] > 0:
            break
        lr = lr_at(args, step, elapsed_min)
        for g in opt.param_groups:
            g["lr"] = lr
        batch = to_device(batch, device)
        # Seeded by the step, so every rank makes the same choice.
        pruned = args.fixation_keep > 0 and random.Random(step).random() < args.fixation_share
        fixation = (args.fixation_focal, args.fixation_keep) if pruned else None
        loss, ar, diff, glyph, look, mtp = batch_loss(model, batch, glyph_head, args.glyph_weight, args.look_weight,
                                                      fixation, args.mtp_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        stats = torch.tensor([len(batch["patches"]), loss.item(), ar.item(), diff.item(),
                              0.0 if glyph is None else glyph.item(), 0.0 if look is None else look.item(),
                              0.0 if mtp is None else mtp.item()], dtype=torch.float64)
        if distributed:
            average_gradients(params, args.ranks)
            dist.all_reduce(stats)
            stats[1:] /= args.ranks
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        n = int(stats[0])
        samples_seen += n
        for key, value in zip(losses, stats[1:].tolist()):
            window[key] += value
        window["n"] += 1
        window["pruned"] += pruned
        window["ar_pruned"] += float(stats[2]) if pruned else 0.0
        window["samples"] += n
        if rank != 0:
            continue
        if step % 10 == 0:
            now = time.time()
            rec = {"step": step, "minutes": round((now - t0) / 60, 2), "samples": samples_seen,
                   **{key: window[key] / window["n"] for key in losses}, "lr": lr,
                   # The AR loss of the pruned steps alone: what training under fixation is lowering.
                   **({"pruned_share": window["pruned"] / window["n"],
                       "ar_loss_pruned": window["ar_pruned"] / window["pruned"]} if window["pruned"] else {}),
                   "samples_per_s": window["samples"] / (now - window["t"])}
            if step % 50 == 0:
                rec["image_gain"] = image_gain(model, probe)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(json.dumps(rec), flush=True)
            window = new_window(now)
        if time.time() - last_ckpt > args.ckpt_every * 60:
            save()
            last_ckpt = time.time()
    if rank == 0:
        save()
        print(f"done: step {step}, {samples_seen} samples, checkpoint {ckpt_dir}/last.pt", flush=True)
    if distributed:
        dist.destroy_process_group()


def adapt_state(state, source_config, config):
    """(state, fresh): `state` of an exported model made ready for a model of `config`, and the names of the
    parameters that start from their initialisation instead.

    Going from m x m merged patches to one patch per token, the merger's first layer sees one patch where it
    saw m * m; summing its weight blocks makes it answer a patch as it answered a cell of m * m copies of it,
    so the decoder starts from image embeddings it knows rather than from noise. A convolutional stem added to
    a model without one starts fresh, and so does the patch embedding behind it (its input changes). An MTP
    head is kept when this run trains one; without --mtp-weight it is left behind, since it would no longer
    match the trunk it was trained on (train_mtp.py trains a new one onto the result)."""
    src_v, dst_v = source_config["vision_config"], config["vision_config"]
    state, fresh = dict(state), set()
    m_from, m_to = src_v["merge_size"], dst_v["merge_size"]
    if m_from != m_to:
        if m_to != 1:
            raise ValueError(f"cannot start a merge size {m_to} model from a merge size {m_from} one "
                             "(only 1 is derived)")
        w = state["merger.fc1.weight"]  # [D, m * m * Dv], blocks in the cell's row-major patch order
        state["merger.fc1.weight"] = w.view(w.shape[0], m_from * m_from, -1).sum(1)
    if src_v.get("stem_channels") != dst_v.get("stem_channels"):
        if src_v.get("stem_channels"):
            raise ValueError("cannot start a model from one with a different convolutional stem")
        for name in ("vision.patch_embed.weight", "vision.patch_embed.bias"):
            del state[name]
            fresh.add(name)
        for i in range(len(dst_v["stem_channels"])):
            fresh |= {f"vision.stem.convs.{i}.weight", f"vision.stem.convs.{i}.bias"}
    head = {name for name in state if name.startswith("mtp.")}
    if not config["text_config"].get("num_mtp_layers"):
        for name in head:
            del state[name]
    elif not head:
        fresh |= {f"mtp.{name}" for name in MtpHead(config["text_config"]).state_dict()}
    return state, fresh


def average_gradients(params, ranks):
    """Mean of every rank's gradient, flattened into one all-reduce (unused parameters count as zero)."""
    import torch.distributed as dist
    params = [p for p in params if p.requires_grad]
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    flat = torch.cat([p.grad.reshape(-1) for p in params])
    dist.all_reduce(flat)
    flat /= ranks
    offset = 0
    for p in params:
        p.grad.copy_(flat[offset:offset + p.numel()].view_as(p))
        offset += p.numel()


if __name__ == "__main__":
    main()
