"""Train the line model's decoder (saccade/line_model.py) on cached encoder output (line_features.py) with
the dual AR + diffusion objective; the pretrained encoder stays frozen (docs/decisions/0019).

    /usr/bin/python3 line_features.py --lines 16000 --out /tmp/saccade-lines
    /usr/bin/python3 train_line.py --name line-v1 --features /tmp/saccade-lines --minutes 60

--mtp-onto DIR trains an MTP head onto the exported model in DIR the same way (docs/decisions/0018).

Resumable: re-running the same command continues from --ckpt-dir's last.pt. The learning rate follows
wall-clock time (warm-up, then cosine to 10% at --minutes). Every --eval-every steps the model reads
--eval-lines fresh generated lines (seeds from EVAL_SEED_BASE, never trained on) through the whole path,
encoder included, and the log records its CER beside the encoder's own CTC readout of the same lines.
"""
import argparse
import glob
import json
import math
import os
import random
import time

import torch

from saccade.data import EVAL_SEED_BASE, single_text_lines
from saccade.decode import Region, greedy_ar
from saccade.launch import record_launch
from saccade.line_augment import double_spaces, drop_readings, jitter_features
from saccade.line_encoder import ctc_greedy
from saccade.line_model import ENCODERS, LineOCR, encoder_charset, line_config, load_encoder
from saccade.checkpoint import export, load
from saccade.loss import dual_loss
from saccade.masks import build_sample, collate
from saccade.metrics import edit_distance
from saccade.model import MtpHead, count_parameters
from saccade.mtp import DRAFTS as MTP_DRAFTS, chain_loss
from saccade.tokenizer import Tokenizer
from saccade.vocab import PROMPTS

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--name", required=True, help="run name: logs go to training/runs/<name>/")
    p.add_argument("--features", required=True, help="folder of line_features.py shards")
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--ckpt-dir", default=None, help="default /tmp/saccade-train/<name>")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--token-budget", type=int, default=6144, help="padded tokens per batch")
    p.add_argument("--max-batch", type=int, default=64)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=8, help="query heads (head_dim 32)")
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--intermediate", type=int, default=768)
    p.add_argument("--features-used", default="neck,backbone", help="encoder outputs each image token reads")
    p.add_argument("--positions", default="reading", choices=["reading", "grid"],
                   help="image token positions: the encoder's reading index, or the column (line_model.py)")
    p.add_argument("--max-target-tokens", type=int, default=96, help="longer lines are skipped")
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--eval-lines", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--encoder", choices=sorted(ENCODERS), default="pp_ocrv4",
                   help="the pretrained encoder the cache (--features) was made with")
    p.add_argument("--init", default=None,
                   help="start from these weights (a last.pt, or an exported model folder; new optimiser); weights "
                        "whose shape differs (the projector's first layer over another encoder's features) start afresh")
    p.add_argument("--drop-space", type=float, default=0.0,
                   help="chance that each space the CTC reading shows is taken out of it (line_augment.py)")
    p.add_argument("--drop-other", type=float, default=0.0, help="the same for every other character")
    p.add_argument("--double-space", type=float, default=0.0,
                   help="chance that each space of the CTC reading is read twice (line_augment.py)")
    p.add_argument("--feature-noise", type=float, default=0.0,
                   help="Gaussian noise on the encoder features, in units of each channel's spread over the line")
    p.add_argument("--mtp-onto", default=None,
                   help="train an MTP head onto this exported model (its other weights frozen; the log's ar and "
                        "diff columns then hold the chain's depth-1 and depth-3 losses) and write it back there")
    return p.parse_args(argv)


def load_lines(folder, tokenizer, features, max_tokens=10**9):
    """Every cached line whose target the tokenizer covers in at most max_tokens tokens: (features [T, F]
    float16, ctc, target ids)."""
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "shard-*.pt"))):
        rows = torch.load(path)
        for i, target in enumerate(rows["target"]):
            try:
                ids = tokenizer.encode(target)
            except ValueError:
                continue
            if len(ids) > max_tokens:
                continue
            feats = torch.cat([rows[f][i] for f in features], dim=-1)
            lines.append((feats, rows["ctc"][i], ids))
    return lines


def batches(lines, token_budget, max_batch, block_size, rng, generator, reading, augment):
    """Endless batches of similar length (a shuffled pool sorted by length, cut by the token budget), each
    line's encoder output through augment(features, ctc) afresh every time it is drawn."""
    while True:
        order = list(range(len(lines)))
        rng.shuffle(order)
        for start in range(0, len(order), 1024):
            pool = sorted(order[start:start + 1024], key=lambda i: lines[i][0].shape[0] + 3 * len(lines[i][2]))
            chunk, out = [], []
            for i in pool:
                feats, ctc, ids = lines[i]
                feats, ctc = augment(feats, ctc.float())
                s = build_sample(1, feats.shape[0], PROMPTS["text"], ids, block_size, generator,
                                 reading=reading(ctc))
                s["features"], s["ctc"] = feats, ctc
                if chunk and (len(s["input_ids"]) * (len(chunk) + 1) > token_budget or len(chunk) >= max_batch):
                    out.append(chunk)
                    chunk = []
                chunk.append(s)
            out.append(chunk)
            rng.shuffle(out)
            yield from out


def step_loss(model, samples):
    batch = collate(samples)
    embeds = [model.project(s["features"].float(), s["ctc"].float()) for s in samples]
    logits = model(batch["input_ids"], batch["pos3"], batch["attn"], embeds)
    return dual_loss(logits, batch["ar_labels"], batch["diff_labels"])


def head_loss(model, samples):
    """The MTP head's chain loss over the clean streams, the trunk frozen (saccade/mtp.py)."""
    batch = collate(samples)
    batch["layout"] = [(s["prefix_len"], s["stream_len"]) for s in samples]
    T = max(P + L for P, L in batch["layout"])
    with torch.no_grad():
        embeds = [model.project(s["features"].float(), s["ctc"].float()) for s in samples]
        hidden, _ = model.trunk(batch["input_ids"][:, :T], batch["pos3"][:, :T], batch["attn"][:, :T, :T], embeds)
    loss, per_depth = chain_loss(model, batch, hidden, embeds, MTP_DRAFTS)
    return loss, torch.tensor(per_depth[0]), torch.tensor(per_depth[-1])


@torch.no_grad()
def evaluate(model, lines, tokenizer, charset):
    model.eval()
    edits = ctc_edits = chars = 0
    for image, target in lines:
        pixels = model.prepare(image)
        region = Region(model, pixels, PROMPTS["text"])
        pred = tokenizer.decode(greedy_ar(region, max_new=2 * pixels.shape[-1] // 8 + 16).ids)
        ctc = ctc_greedy(model.encoder(pixels)["ctc_logits"][0], charset)
        edits += edit_distance(pred, target)
        ctc_edits += edit_distance(ctc, target)
        chars += len(target)
    model.train()
    return edits / chars, ctc_edits / chars


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    run_dir = os.path.join(HERE, "runs", args.name)
    ckpt_dir = args.ckpt_dir or os.path.join("/tmp/saccade-train", args.name)
    os.makedirs(run_dir, exist_ok=True)
    os.makedirs(ckpt_dir, exist_ok=True)
    record_launch(run_dir)
    tokenizer = Tokenizer()
    features = args.features_used.split(",")
    if args.mtp_onto:  # a head for an exported model: everything else stays as it is
        model = load(args.mtp_onto)
        config = model.config
        charset = encoder_charset(config["vision_config"]["encoder"])
        config["text_config"]["num_mtp_layers"] = 1
        model.mtp = MtpHead(config["text_config"])
        model.mtp.apply(model._init)
    else:
        encoder_config, encoder_state, charset = load_encoder(args.encoder)
        config = line_config(encoder_config, features, args.positions, charset, hidden_size=args.hidden,
                             num_layers=args.layers, num_attention_heads=args.heads,
                             num_key_value_heads=args.kv_heads, intermediate_size=args.intermediate)
        model = LineOCR(config)
        model.encoder.load_state_dict(encoder_state)
        model.set_charset(charset)
    if args.init:
        init = load(args.init).state_dict() if os.path.isdir(args.init) else torch.load(args.init)["model"]
        own = model.state_dict()
        # The encoder is the pretrained one named by --encoder, never the initial model's.
        kept = {k: v for k, v in init.items() if k in own and v.shape == own[k].shape
                and not k.startswith("encoder.") and k not in ("ctc_map", "encoder_charset")}
        afresh = sorted(k for k in own if k not in kept and not k.startswith("encoder.")
                        and k not in ("ctc_map", "encoder_charset"))
        if afresh:
            print(f"--init: {len(afresh)} tensors start afresh: {', '.join(afresh)}", flush=True)
        model.load_state_dict(kept, strict=False)
    objective = head_loss if args.mtp_onto else step_loss
    trainable = [p for n, p in model.named_parameters()
                 if (n.startswith("mtp.") if args.mtp_onto else not n.startswith("encoder."))]
    for p in model.parameters():
        p.requires_grad_(False)
    for p in trainable:
        p.requires_grad_(True)
    opt = torch.optim.AdamW(trainable, lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    step, elapsed = 0, 0.0
    last = os.path.join(ckpt_dir, "last.pt")
    if os.path.exists(last):
        state = torch.load(last)
        model.load_state_dict(state["model"], strict=False)
        opt.load_state_dict(state["opt"])
        step, elapsed = state["step"], state["elapsed"]
    lines = load_lines(args.features, tokenizer, features, args.max_target_tokens)
    held_out = [(r.image, r.target) for _, r in single_text_lines(EVAL_SEED_BASE, args.eval_lines)]
    print(f"{len(lines)} cached lines, {count_parameters(model) - count_parameters(model.encoder)} trainable "
          f"parameters, step {step}", flush=True)
    log = open(os.path.join(run_dir, "log.jsonl"), "a")
    generator = torch.Generator().manual_seed(args.seed + step)
    V = config["text_config"]["vocab_size"]
    space = tokenizer.vocab[" "]

    def augment(feats, ctc):
        ctc = drop_readings(ctc, V, space, args.drop_space, args.drop_other, generator)
        ctc = double_spaces(ctc, V, space, args.double_space, generator)
        return jitter_features(feats, args.feature_noise, generator), ctc

    stream = batches(lines, args.token_budget, args.max_batch, config["diffusion_block_size"],
                     random.Random(args.seed + step), generator, model.reading, augment)
    budget = args.minutes * 60
    start = time.time() - elapsed

    def save():
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                    "elapsed": time.time() - start, "config": config}, last)

    model.train()
    while time.time() - start < budget:
        t = time.time() - start
        lr = args.lr * min(1.0, (step + 1) / args.warmup) * (0.1 + 0.45 * (1 + math.cos(math.pi * t / budget)))
        for g in opt.param_groups:
            g["lr"] = lr
        loss, ar, diff = objective(model, next(stream))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        opt.step()
        step += 1
        if step % 10 == 0:
            row = {"step": step, "time": round(time.time() - start), "lr": lr, "loss": loss.item(),
                   "ar": ar.item(), "diff": diff.item()}
            if step % args.eval_every == 0:
                row["eval_cer"], row["ctc_cer"] = evaluate(model, held_out, tokenizer, charset)
                save()
            log.write(json.dumps(row) + "\n")
            log.flush()
            print(json.dumps(row), flush=True)
    cer, ctc = evaluate(model, held_out, tokenizer, charset)
    save()
    if args.mtp_onto:
        export(model, args.mtp_onto)
    log.write(json.dumps({"step": step, "time": round(time.time() - start), "eval_cer": cer, "ctc_cer": ctc}) + "\n")
    print(f"done: step {step}, eval CER {cer:.4f}, encoder CTC CER {ctc:.4f}", flush=True)


if __name__ == "__main__":
    main()
