"""Evaluate a shipped checkpoint with the PyTorch reference decoders, and tesseract on the same real crops.

    /usr/bin/python3 evaluate.py --samples 200 --json eval.json [--data ../../shared/data/real-dev]

Synthetic regions use seeds from EVAL_SEED_BASE up (training seeds stay below). Text CER is
edit distance / truth length summed over regions; tables are scored with TEDS; formulas by exact match
after whitespace normalisation. Self-spec is checked token for token against greedy AR.
tokens_per_forward counts decoder forwards after the prefill (self-spec: one verify-and-draft forward per round;
MTP, when the model has a head: one verify forward per round, the head's passes not counted).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import cv2
import torch

from saccade import real_dev
from saccade.checkpoint import load
from saccade.data import EVAL_SEED_BASE, single_text_lines
from saccade.line_encoder import ctc_greedy
from saccade.line_model import LineOCR, encoder_charset
from saccade.decode import Region, diffusion, greedy_ar, mtp_spec, self_spec
from saccade.mtp import DRAFTS as MTP_DRAFTS
from saccade.metrics import edit_distance, normalize_formula, teds
from saccade.tokenizer import Tokenizer
from saccade.vocab import PROMPTS

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL = os.path.join(HERE, "..", "assets", "models", "saccade-ocr-tiny")
DEFAULT_DATA = os.path.join(HERE, "..", "..", "shared", "data", "real-dev")
TAUS = (0.7, 0.9, 0.99)


class Scores:
    """Accumulates the per-kind quality metrics of one decoder."""

    def __init__(self):
        self.edits = self.chars = 0
        self.teds, self.exact = [], []

    def add(self, kind, pred, truth, casefold=False):
        if kind == "table":
            self.teds.append(teds(pred, truth))
        elif kind == "formula":
            self.exact.append(normalize_formula(pred) == normalize_formula(truth))
        else:
            if casefold:
                pred, truth = pred.upper(), truth.upper()
            self.edits += edit_distance(pred, truth)
            self.chars += len(truth)

    @property
    def cer(self):
        return self.edits / self.chars if self.chars else None

    @property
    def mean_teds(self):
        return sum(self.teds) / len(self.teds) if self.teds else None

    @property
    def exact_rate(self):
        return sum(self.exact) / len(self.exact) if self.exact else None


def recognise(model, tok, image, kind, max_new):
    """The text the engine writes for a crop: a line model's line in a script its decoder lacks is the encoder's."""
    pixels = model.prepare(image)
    if isinstance(model, LineOCR) and kind == "text":
        written = model.encoder_written(pixels)
        if written is not None:
            return written
    return tok.decode(greedy_ar(Region(model, pixels, PROMPTS[kind]), output_cap(model, pixels, max_new)).ids)


def tesseract(image, kind):
    """Tesseract's text for a crop; tables become rows split on wide gaps so TEDS can score them."""
    psm = "6" if kind == "table" else "7"
    ok, png = cv2.imencode(".png", image)
    args = ["tesseract", "stdin", "stdout", "--psm", psm, "-l", "eng"]
    if kind == "table":
        args += ["-c", "preserve_interword_spaces=1"]
    out = subprocess.run(args, input=png.tobytes(), capture_output=True).stdout.decode("utf-8", "replace")
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    if kind != "table":
        return " ".join(lines)
    rows = ["<tr>" + "".join(f"<td>{c}</td>" for c in re.split(r"\s{2,}", l)) + "</tr>" for l in lines]
    return "<table>" + "".join(rows) + "</table>"


def output_cap(model, pixels, max_new):
    """At most 8 tokens per image token (+64): a region cannot hold more, so a looping decode stops."""
    rows, cols = model.image_grid(pixels)
    return min(max_new, 64 + 8 * rows * cols)


def evaluate_synthetic(model, n, max_new, with_ar, diffusion_samples, log):
    from saccade.synth import generate_region
    tok = Tokenizer()
    B = model.config["diffusion_block_size"]
    ar_scores, identical = Scores(), []
    spec_tokens = spec_forwards = 0
    mtp = {"identical": 0, "tokens": 0, "forwards": 0} if model.mtp is not None else None
    diff = {tau: {"scores": Scores(), "tokens": 0, "forwards": 0} for tau in TAUS}
    count = n if with_ar else min(n, diffusion_samples)
    # A line model reads single lines (the pipeline cuts pages into lines and cells); the others whole regions.
    if isinstance(model, LineOCR):
        regions = [r for _, r in single_text_lines(EVAL_SEED_BASE, count)]
    else:
        regions = [generate_region(EVAL_SEED_BASE + i) for i in range(count)]
    for i, region in enumerate(regions):
        pixels = model.prepare(region.image)
        prompt, cap = PROMPTS[region.kind], output_cap(model, pixels, max_new)
        if with_ar:
            ar = greedy_ar(Region(model, pixels, prompt), cap)
            ar_scores.add(region.kind, tok.decode(ar.ids), region.target)
            spec = self_spec(Region(model, pixels, prompt), B, cap)
            identical.append(spec.ids == ar.ids)
            spec_tokens += len(spec.ids) - spec.from_prefill
            spec_forwards += spec.forwards
            if mtp is not None:
                m = mtp_spec(Region(model, pixels, prompt), drafts=MTP_DRAFTS, max_new=cap)
                mtp["identical"] += m.ids == ar.ids
                mtp["tokens"] += len(m.ids) - m.from_prefill
                mtp["forwards"] += m.forwards
        if i < diffusion_samples:
            for tau in TAUS:
                d = diffusion(Region(model, pixels, prompt), tau, B, cap)
                diff[tau]["scores"].add(region.kind, tok.decode(d.ids), region.target)
                diff[tau]["tokens"] += len(d.ids)
                diff[tau]["forwards"] += d.forwards
        if (i + 1) % 10 == 0:
            log(f"synthetic {i + 1}/{n}: cer {ar_scores.cer} teds {ar_scores.mean_teds} "
                f"exact {ar_scores.exact_rate} identical {sum(identical)}/{len(identical)} "
                f"tpf {spec_tokens / max(1, spec_forwards):.2f}")
    result = {}
    if with_ar:
        result["synthetic"] = {"samples": n, "text_cer": ar_scores.cer, "table_teds": ar_scores.mean_teds,
                               "formula_exact": ar_scores.exact_rate, "tables": len(ar_scores.teds),
                               "formulas": len(ar_scores.exact)}
        result["self_spec"] = {"block_size": B, "identical_to_ar": sum(identical) / max(1, n),
                               "tokens_per_forward": spec_tokens / max(1, spec_forwards)}
        if mtp is not None:
            result["mtp"] = {"drafts": MTP_DRAFTS, "identical_to_ar": mtp["identical"] / max(1, n),
                             "tokens_per_forward": mtp["tokens"] / max(1, mtp["forwards"])}
    if diffusion_samples:
        result["diffusion"] = [{"tau_c": tau, "samples": min(n, diffusion_samples),
                                "tokens_per_forward": d["tokens"] / max(1, d["forwards"]),
                                "text_cer": d["scores"].cer, "table_teds": d["scores"].mean_teds,
                                "formula_exact": d["scores"].exact_rate} for tau, d in diff.items()]
    return result


def evaluate_real(model, root, limit, max_new, log):
    tok = Tokenizer()
    sets = [("scribe_line_cer", "text", real_dev.scribe_lines, "cer", False),
            ("sroie_line_cer", "text", real_dev.sroie_lines, "cer", True),
            ("chinese_line_cer", "text", real_dev.chinese_lines, "cer", False),
            ("pubtabnet_teds", "table", real_dev.pubtabnet_tables, "mean_teds", False),
            ("im2latex_exact", "formula", real_dev.im2latex_formulas, "exact_rate", False)]
    ours, theirs, counts, examples, readout = {}, {}, {}, {}, {}
    line_model = isinstance(model, LineOCR)
    charset = encoder_charset(model.config["vision_config"]["encoder"]) if line_model else None
    for key, kind, reader, metric, casefold in sets:
        crops = reader(root, limit)
        model_scores, tess_scores, ctc_scores = Scores(), Scores(), Scores()
        examples[key] = []
        for image, truth in crops:
            pred = recognise(model, tok, image, kind, max_new)
            model_scores.add(kind, pred, truth, casefold)
            tess_scores.add(kind, tesseract(image, kind), truth, casefold)
            if line_model and kind == "text":  # the pretrained encoder's own CTC head, on the same crops
                logits = model.encoder(model.prepare(image))["ctc_logits"][0]
                ctc_scores.add(kind, ctc_greedy(logits, charset), truth, casefold)
            if len(examples[key]) < 5:  # what the model wrote; the licensed ground truth stays out of results
                examples[key].append(pred[:200])
        ours[key], theirs[key], counts[key] = getattr(model_scores, metric), getattr(tess_scores, metric), len(crops)
        if ctc_scores.chars:
            readout[key] = ctc_scores.cer
        log(f"real {key}: model {ours[key]} tesseract {theirs[key]} ctc readout {readout.get(key)} "
            f"on {len(crops)} crops")
    result = {"real_dev": {**ours, "crops": counts, "examples": examples}, "tesseract": theirs}
    if readout:
        result["ctc_readout"] = readout
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--samples", type=int, default=200, help="fresh synthetic regions")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--data", default=DEFAULT_DATA, help="real development set (skipped if absent)")
    p.add_argument("--real-limit", type=int, default=120, help="crops per real set")
    p.add_argument("--diffusion-samples", type=int, default=100, help="synthetic regions decoded by diffusion")
    p.add_argument("--max-new", type=int, default=512)
    p.add_argument("--parts", default="synthetic,diffusion,real",
                   help="comma list of synthetic (AR + self-spec), diffusion, real; run parts in parallel "
                        "processes and merge their JSON objects")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reading-prior", type=float, default=None,
                   help="decode with this reading-prior weight instead of the checkpoint's (0: the decoder alone; "
                        "docs/decisions/0022)")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    start = time.time()

    def log(msg):
        print(f"[{time.time() - start:6.0f}s] {msg}", file=sys.stderr, flush=True)

    model = load(args.model, torch.float32)
    if args.reading_prior is not None:
        model.config["reading_prior"] = {**model.config.get("reading_prior", {}), "weight": args.reading_prior}
    result = {"model": os.path.relpath(args.model, HERE),
              "reading_prior": model.config.get("reading_prior", {}).get("weight", 0.0)}
    parts = set(args.parts.split(","))
    with torch.no_grad():
        diffusion_samples = args.diffusion_samples if "diffusion" in parts else 0
        if args.samples > 0 and ("synthetic" in parts or diffusion_samples):
            result.update(evaluate_synthetic(model, args.samples, args.max_new, "synthetic" in parts,
                                             diffusion_samples, log))
        if "real" in parts and os.path.isdir(args.data):
            result.update(evaluate_real(model, args.data, args.real_limit, args.max_new, log))
        elif "real" in parts:
            log(f"real-dev data not found at {args.data}: skipping real_dev and tesseract")
            result["real_dev"] = result["tesseract"] = None
    result["seconds"] = round(time.time() - start)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
