"""The MTP head (docs/decisions/0018): its chained training attention, decoding parity with it, greedy
exactness of MTP speculation, and a head that learns to draft what the trunk will say."""
import torch

from saccade.data import collate_with_images, encode_region
from saccade.decode import MtpDrafter, Region, greedy_ar, mtp_spec
from saccade.model import SaccadeOCR
from saccade.mtp import chain_logits, chain_mask, mtp_loss
from saccade.preprocess import preprocess
from saccade.sequence import text_positions
from saccade.tokenizer import Tokenizer
from saccade.vocab import EOS, PROMPTS
from tiny import striped_image, tiny_config


def mtp_config():
    config = tiny_config()
    config["text_config"]["num_mtp_layers"] = 1
    return config


def test_chain_mask_cell_by_cell():
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    assert torch.equal(chain_mask(causal, 1), causal)
    m = chain_mask(causal, 3).int()
    # Depth 3 at i: depth-1 entries up to i - 2, the depth-2 entry at i - 1, its own at i.
    assert m[:, :5].tolist() == [[0] * 5, [0] * 5, [1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0]]
    assert m[:, 5:10].tolist() == [[0] * 5, [1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]]
    assert m[:, 10:].tolist() == torch.eye(5, dtype=torch.int).tolist()


def test_training_chain_equals_the_decoders_chain():
    torch.manual_seed(0)
    config = mtp_config()
    model = SaccadeOCR(config).double().eval()
    image = striped_image(0)
    s = encode_region(image, "hello world", "text", config, Tokenizer(), torch.Generator().manual_seed(0))
    P, L = s["prefix_len"], s["stream_len"]
    T = P + L
    ids, pos3, attn = s["input_ids"][None, :T], s["pos3"][None, :T], s["attn"][None, :T, :T]
    with torch.no_grad():
        embeds = model.encode_images([s["patches"].double()], [s["grid"]])
        hidden, _ = model.trunk(ids, pos3, attn, embeds)
        x = model.embed(ids, embeds)
        next_embeds = torch.cat([x[0, 1:], torch.zeros_like(x[0, :1])])
        trained = chain_logits(model, hidden[0], next_embeds, pos3[0], P - 1, 3)  # rows from the prompt on

        region = Region(model, preprocess(image, config["image"]).double(), PROMPTS["text"])
        y = ids[0, P:].tolist()
        # Commit the trunk through y_1 (the anchor a = the slot of y_1), then chain on the true tokens.
        step_hidden = []
        region.forward(y[:2], region.next_pos, torch.ones(2, 2, dtype=torch.bool).tril(), commit=2,
                       hidden=step_hidden)
        head = MtpDrafter(region)
        next_embeds = torch.cat([region.prefix_embeds[1:], model.embed(torch.tensor([y[:3]]))[0]])
        logits, out = head.step(torch.cat([region.prefix_hidden, step_hidden[0]]), next_embeds,
                                torch.cat([region.prefix_pos, text_positions(region.next_pos, 2)]), commit=P + 2)
        a = 2  # the anchor's row: the slot of y_1
        assert torch.allclose(logits[P - 1:], trained[0, :a + 1], atol=1e-9)
        for depth in (2, 3):
            logits, out = head.step(out[-1:], model.embed(torch.tensor([[y[depth + 1]]]))[0],
                                    text_positions(region.next_pos + depth, 1), commit=1)
            assert torch.allclose(logits[0], trained[depth - 1, a + depth - 1], atol=1e-9)


def test_mtp_spec_is_greedy_ar_for_every_draft_length():
    torch.manual_seed(1)
    config = mtp_config()
    model = SaccadeOCR(config).eval()
    pixels = preprocess(striped_image(3), config["image"])
    ar = greedy_ar(Region(model, pixels, PROMPTS["text"]), max_new=40)
    for drafts in (0, 1, 3, 6):
        spec = mtp_spec(Region(model, pixels, PROMPTS["text"]), drafts=drafts, max_new=40)
        assert spec.ids == ar.ids, drafts
        assert sum(spec.rounds) == len(ar.ids) - 1


def test_head_learns_to_draft_what_the_trunk_reads():
    """A trunk overfit to two regions, then its head alone: MTP speculation commits several tokens per
    forward while the trunk's output stays as it was."""
    torch.manual_seed(0)
    config = mtp_config()
    model = SaccadeOCR(config)
    tok = Tokenizer()
    targets = ["cat 12 dog 345", "ring: 7.50 sum"]
    images = [striped_image(i) for i in range(len(targets))]
    g = torch.Generator().manual_seed(0)

    def batch():
        return collate_with_images([encode_region(im, t, "text", config, tok, g) for im, t in zip(images, targets)])

    trunk = [p for n, p in model.named_parameters() if not n.startswith("mtp.")]
    opt = torch.optim.AdamW(trunk, lr=3e-3)
    from saccade.loss import batch_loss
    for _ in range(200):
        loss = batch_loss(model, batch())[0]
        opt.zero_grad()
        loss.backward()
        opt.step()
    before = {n: p.detach().clone() for n, p in model.named_parameters() if not n.startswith("mtp.")}
    opt = torch.optim.AdamW(model.mtp.parameters(), lr=3e-3)
    for _ in range(150):
        loss, per_depth = mtp_loss(model, batch(), depth=3)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert max(per_depth) < 0.1, per_depth
    assert all(torch.equal(p, before[n]) for n, p in model.named_parameters() if not n.startswith("mtp."))
    model.eval()
    for image, target in zip(images, targets):
        pixels = preprocess(image, config["image"])
        spec = mtp_spec(Region(model, pixels, PROMPTS["text"]), drafts=3)
        assert spec.ids == tok.encode(target) + [EOS]
        assert spec.tokens_per_forward > 3


def test_joint_training_reaches_trunk_and_head_and_heads_follow_their_trunk():
    """With --mtp-weight the head's chain loss joins the dual loss and its gradient reaches the trunk; a run
    starting from a model with a head keeps it only when it trains one."""
    from saccade.loss import batch_loss
    from train import adapt_state
    torch.manual_seed(0)
    config = mtp_config()
    model = SaccadeOCR(config)
    g = torch.Generator().manual_seed(0)
    batch = collate_with_images([encode_region(striped_image(i), t, "text", config, Tokenizer(), g)
                                 for i, t in enumerate(["cat 12", "dog: 7."])])
    plain = batch_loss(model, batch)
    joint = batch_loss(model, batch, mtp_weight=0.5)
    assert plain.mtp is None and joint.mtp is not None
    assert torch.allclose(joint.total, plain.total + 0.5 * joint.mtp)
    joint.total.backward()
    layer = model.model.layers[0].self_attn.q_proj.weight
    assert model.mtp.eh_proj.weight.grad.abs().sum() > 0 and layer.grad.abs().sum() > 0

    headless = tiny_config()
    state, fresh = adapt_state(model.state_dict(), config, headless)
    assert not any(k.startswith("mtp.") for k in state) and not fresh
    state, fresh = adapt_state(SaccadeOCR(headless).state_dict(), headless, config)
    assert fresh == {k for k in model.state_dict() if k.startswith("mtp.")}
