"""The dual-mode conversion of a GLM-OCR folder (training/glm_ocr/convert_dual.py), on the tiny checkpoint.

Needs transformers (training/glm_ocr/requirements.txt, the training venv); CI's Debian python3 has none.
"""
import json
import os
import shutil
import sys

import pytest
import torch

pytest.importorskip("transformers", reason="GLM-OCR's reference needs transformers "
                                           "(pip install -r training/glm_ocr/requirements.txt)")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "glm_ocr"))
TINY = os.path.join(HERE, "..", "..", "native", "test", "golden", "glm_ocr", "tiny")

import convert_dual  # noqa: E402
from saccade.masks import IGNORE  # noqa: E402
from three_stream import stream_positions, three_stream  # noqa: E402


@pytest.fixture
def tiny(tmp_path):
    """A copy, so that nothing can write into the committed checkpoint."""
    return shutil.copytree(TINY, tmp_path / "tiny")


def test_the_attention_mask_is_the_recipe():
    # Prefix of 2 rows, target [5, 6] + EOS, padded to two blocks of 2: y = 5 6 E E, blocks 0 0 1 1.
    out = three_stream(2, [5, 6], block_size=2, mask_id=9, eos_id=1,
                       generator=torch.Generator().manual_seed(0), offset=0)
    rows = [
        "1.............",  # prefix: causal
        "11............",
        "111...........",  # clean stream: prefix + clean <= i
        "1111..........",
        "11111.........",
        "111111........",
        "11....11......",  # stream A, block 0: prefix + its own block
        "11....11......",
        "1111....11....",  # stream A, block 1: prefix + clean block 0 + its own block
        "1111....11....",
        "11........11..",  # stream B likewise, never stream A
        "11........11..",
        "1111........11",
        "1111........11",
    ]
    want = torch.tensor([[c == "1" for c in r] for r in rows])
    assert torch.equal(out["attn"], want)
    y = torch.tensor([5, 6, 1, 1])
    a, b = out["stream_ids"][4:8], out["stream_ids"][8:]
    assert torch.equal(out["stream_ids"][:4], y)
    assert torch.equal((a == 9) ^ (b == 9), torch.ones(4, dtype=torch.bool))  # complementary masks
    assert torch.equal(out["ar_labels"], torch.tensor([IGNORE, 5, 6, 1] + [IGNORE] * 10))
    diff = out["diff_labels"]
    assert torch.equal(diff[:6], torch.full((6,), IGNORE))
    assert torch.equal(diff[6:10], torch.where(a == 9, y, IGNORE))
    assert torch.equal(diff[10:], torch.where(b == 9, y, IGNORE))
    pos = stream_positions(torch.tensor([[0, 1], [0, 1], [0, 3]]), 4)
    assert pos[:, 2:].tolist() == [[4, 5, 6, 7] * 3] * 3  # text after max + 1, the same in each stream


def test_a_few_steps_reduce_the_three_stream_loss_on_a_fixed_batch(tiny):
    torch.manual_seed(0)
    model = convert_dual.load_model(tiny)
    processor = convert_dual.load_processor(tiny)
    mask_id, added = convert_dual.ensure_mask_token(processor, model)
    assert (mask_id, added) == (processor.tokenizer.convert_tokens_to_ids("[MASK]"), False)
    data = convert_dual.RegionSamples(tiny, seed=5, first=0, count=2, max_target_tokens=48)
    batch = convert_dual.lay_out(model, [data[0], data[1]], mask_id, 440, block_size=8, seed=5)
    model.model.visual.requires_grad_(False)
    optim = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    losses = []
    for _ in range(4):
        loss, ar, diff = convert_dual.three_stream_loss(model, batch)
        losses.append(loss.item())
        optim.zero_grad()
        loss.backward()
        optim.step()
    assert losses[-1] < 0.9 * losses[0], losses


def test_the_converted_folder_reloads_with_the_mask_token_and_the_mtp_layer(tiny, tmp_path, capsys):
    out = tmp_path / "dual"
    common = [str(tiny), str(out), "--batch", "2", "--workers", "0", "--device", "cpu", "--block-size", "8",
              "--max-target-tokens", "32", "--max-shard-size", "1MB"]
    convert_dual.main(common + ["--steps", "2"])
    convert_dual.main(common + ["--steps", "3"])
    assert "resumed at step 2" in capsys.readouterr().out

    source, converted = convert_dual.load_model(tiny), convert_dual.load_model(out)
    before, after = source.state_dict(), converted.state_dict()
    assert before.keys() == after.keys()
    assert all(before[k].shape == after[k].shape for k in before)
    assert not torch.equal(before["lm_head.weight"], after["lm_head.weight"])  # it trained

    config = json.load(open(out / "config.json"))["saccade_dual_mode"]
    assert config["block_size"] == 8
    tokenizer = convert_dual.load_processor(out).tokenizer
    assert config["mask_token_id"] == tokenizer.convert_tokens_to_ids("[MASK]") == 441

    n = source.config.text_config.num_hidden_layers
    mtp_before, mtp_after = convert_dual.mtp_tensors(tiny, n), convert_dual.mtp_tensors(out, n)
    assert mtp_before and mtp_before.keys() == mtp_after.keys()
    prefix = f"model.language_model.layers.{n}."
    assert torch.equal(mtp_after[prefix + "eh_proj.weight"], mtp_before[prefix + "eh_proj.weight"])
    # The engine shares the MTP's head and embedding with the trunk and refuses copies that differ.
    assert torch.equal(mtp_after[prefix + "shared_head.head.weight"], after["lm_head.weight"].bfloat16())
    assert torch.equal(mtp_after[prefix + "embed_tokens.weight"],
                       after["model.language_model.embed_tokens.weight"].bfloat16())


def test_a_tokenizer_without_a_mask_token_gets_one_and_the_folder_keeps_it(tiny, tmp_path):
    for name in ("tokenizer.json", "tokenizer_config.json"):
        path = tiny / name
        path.write_text(path.read_text().replace('"[MASK]"', '"[MASQ]"'))  # a checkpoint without [MASK]
    model, processor = convert_dual.load_model(tiny), convert_dual.load_processor(tiny)
    mask_id, added = convert_dual.ensure_mask_token(processor, model)
    assert added and mask_id == len(processor.tokenizer) - 1
    assert mask_id < model.config.text_config.vocab_size  # a spare row of the padded embedding: no resize
    out = tmp_path / "dual"
    convert_dual.export(model, processor, str(tiny), str(out), {}, mask_id, added, 32, "1MB")
    assert convert_dual.load_processor(out).tokenizer.convert_tokens_to_ids("[MASK]") == mask_id
    assert json.load(open(out / "config.json"))["saccade_dual_mode"]["mask_token_id"] == mask_id
