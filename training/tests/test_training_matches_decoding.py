"""The training forward (one sequence, custom mask) computes exactly what the decoders compute."""
import torch

from saccade.data import encode_region
from saccade.decode import Region, causal, draft_mask
from saccade.masks import block_ids
from saccade.model import SaccadeOCR
from saccade.preprocess import preprocess
from saccade.tokenizer import Tokenizer
from saccade.vocab import MASK, PROMPTS
from tiny import striped_image, tiny_config


def test_clean_stream_equals_ar_and_masked_block_equals_draft_forward():
    torch.manual_seed(0)
    config = tiny_config()
    B = config["diffusion_block_size"]
    model = SaccadeOCR(config).double().eval()
    image = striped_image(0)
    target = "hello world"
    g = torch.Generator().manual_seed(0)
    offset = 3
    s = encode_region(image, target, "text", config, Tokenizer(), g, offset=offset)
    P, L = s["prefix_len"], s["stream_len"]
    blocks = block_ids(L, B, offset)
    # Mask the whole second block in stream A: that is exactly a draft forward after its predecessor.
    second = (blocks == 1).nonzero().squeeze(1)
    ids = s["input_ids"].clone()
    ids[P + L + second] = MASK
    with torch.no_grad():
        embeds = model.encode_images([s["patches"].double()], [s["grid"]])
        logits = model(ids[None], s["pos3"][None], s["attn"][None], embeds)[0]

        region = Region(model, preprocess(image, config["image"]).double(), PROMPTS["text"])
        assert torch.allclose(region.prefill_logits, logits[P - 1], atol=1e-9)
        y = s["input_ids"][P:P + L].tolist()
        c_index = int(second[0]) - 1  # c = last token of the first block
        step, _ = region.forward(y[:c_index + 1], region.next_pos, causal(c_index + 1), commit=c_index)
        assert torch.allclose(step, logits[P:P + c_index + 1], atol=1e-9)
        draft, _ = region.forward([y[c_index]] + [MASK] * B, region.next_pos + c_index, draft_mask(1, B),
                                  commit=0)
        assert torch.allclose(draft[1:], logits[P + L + second], atol=1e-9)
        assert torch.allclose(draft[0], logits[P + c_index], atol=1e-9)
