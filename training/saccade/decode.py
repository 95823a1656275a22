"""Reference decoders over one region: greedy AR, self-speculative (decisions 0002, 0016), MTP speculation
(decision 0018) and pure diffusion.

Every decoder counts forwards after the prefill: `tokens_per_forward` = tokens emitted by those forwards /
their number. Greedy AR takes its first token from the prefill's logits.
"""
from dataclasses import dataclass, field

import torch

from .model import attention_bias
from .reading_prior import draft, for_region, pick, verify
from .sequence import prefix, text_positions
from .vocab import EOS, MASK


@dataclass
class Decoded:
    ids: list
    forwards: int = 0  # after the prefill
    from_prefill: int = 1  # tokens taken from the prefill's logits (not counted as decoded)
    rounds: list = field(default_factory=list)  # self-spec: tokens committed per round

    @property
    def tokens_per_forward(self):
        return (len(self.ids) - self.from_prefill) / self.forwards if self.forwards else 0.0


class KVCache:
    def __init__(self):
        self.layers = None

    @property
    def length(self):
        return 0 if self.layers is None else self.layers[0][0].shape[2]

    def commit(self, new, n):
        """Keep the first n rows of a forward's per-layer (k, v)."""
        if n == 0:
            return
        new = [(k[:, :, :n], v[:, :, :n]) for k, v in new]
        if self.layers is None:
            self.layers = new
        else:
            self.layers = [(torch.cat([k0, k], 2), torch.cat([v0, v], 2)) for (k0, v0), (k, v) in
                           zip(self.layers, new)]


def causal(n):
    return torch.ones(n, n, dtype=torch.bool).tril()


def draft_mask(n_committed, n_slots):
    """Committed-but-uncached tokens attend causally; slots see all of them and each other."""
    n = n_committed + n_slots
    m = torch.zeros(n, n, dtype=torch.bool)
    m[:n_committed, :n_committed] = causal(n_committed)
    m[n_committed:, :] = True
    return m


class Region:
    """A region's prefill state: the cache after `[BOS] [IMG] x N [PROMPT]`, the next text position, and the
    reading prior of a model that has one (reading_prior; its state follows the committed tokens)."""

    def __init__(self, model, pixels, prompt_id):
        self.model = model
        self.image_embeds, (rows, cols), reading, ctc = model.image_tokens(pixels)
        self.prior = for_region(model, ctc)
        ids, pos, p = prefix(rows, cols, prompt_id, reading)
        self.cache = KVCache()
        x = model.embed(ids[None], [self.image_embeds])
        logits, new, hidden = model.extend(x, pos[None], causal(len(ids))[None], None)
        self.cache.commit(new, len(ids))
        self.prefill_logits = logits[0, -1]
        self.prefix_embeds, self.prefix_hidden, self.prefix_pos = x[0], hidden[0], pos
        self.next_pos = p + 1  # position of the first text token

    def forward(self, ids, start_pos, block_mask, commit, hidden=None):
        """Forward `ids` at positions start_pos.. after the cache; commit the first `commit` rows' KV.

        Returns the logits [len(ids), V] and the forward's per-layer (k, v) for a later commit; with a list
        as `hidden`, appends the rows' last hidden states [len(ids), D] to it."""
        n_cache = self.cache.length
        mask = torch.cat([torch.ones(len(ids), n_cache, dtype=torch.bool), block_mask], dim=1)
        x = self.model.embed(torch.tensor(ids)[None])
        pos = text_positions(start_pos, len(ids))[None]
        logits, new, h = self.model.extend(x, pos, mask[None], self.cache.layers)
        self.cache.commit(new, commit)
        if hidden is not None:
            hidden.append(h[0])
        return logits[0], new


@torch.no_grad()
def greedy_ar(region, max_new=256):
    tok = pick(region.prior, region.prefill_logits)
    out = Decoded([tok])
    pos = region.next_pos
    while tok != EOS and len(out.ids) < max_new:
        logits, _ = region.forward([tok], pos, causal(1), commit=1)
        out.forwards += 1
        pos += 1
        tok = pick(region.prior, logits[-1])
        out.ids.append(tok)
    return out


@torch.no_grad()
def self_spec(region, block_size=32, max_new=256):
    """One forward per round, [c, g_1..g_k, MASK x B]: c and the guesses g (the previous block's d_2..d_B)
    causal, the verifier; the masks see the prefix, c, the guesses and each other, the next block's draft.
    Commit the guesses that match the verifier, then its token (the correction, or its own next token); the
    block's d_2..d_B are the next round's guesses when every guess held, else there are none.

    The first round's c is the prompt, already in the prefill's cache, so its forward is [MASK x B] and a_1
    comes from the prefill's last logits (the same rows an engine gets from [PROMPT, MASK x B])."""
    B = block_size
    out = Decoded([], from_prefill=0)
    c, c_pos, guesses = None, region.next_pos - 1, []
    while len(out.ids) < max_new:
        k = len(guesses)
        if c is None:
            block, _ = region.forward([MASK] * B, c_pos + 1, draft_mask(0, B), commit=0)
            verified = [pick(region.prior, region.prefill_logits)]
        else:
            logits, new = region.forward([c] + guesses + [MASK] * B, c_pos, draft_mask(1 + k, B), commit=0)
            verified = verify(region.prior, logits[:k + 1], guesses)  # [i]: the AR token after c, g_1..g_i
            block = logits[k + 1:]
        accepted = 0
        while accepted < k and guesses[accepted] == verified[accepted]:
            accepted += 1
        committed = _through_eos(guesses[:accepted] + [verified[accepted]])
        if c is not None:  # c and the accepted guesses keep their causal KV; the last commit is the next c
            region.cache.commit(new, 1 + accepted)
        guesses = draft(region.prior, block[1:]) if accepted == k else []
        out.forwards += 1
        out.rounds.append(len(committed))
        out.ids += committed
        c = committed[-1]
        c_pos += accepted + 1
        if EOS in committed:
            break
    out.ids = _truncate(out.ids, max_new)
    return out


class MtpDrafter:
    """The MTP head's own one-layer cache over a region (saccade/mtp.py): entry s reads the trunk's hidden
    state at slot s and the embedding of the token at s + 1, committed once both are final."""

    def __init__(self, region):
        self.model, self.cache = region.model, KVCache()

    def step(self, hidden, next_embeds, pos, commit):
        """Head rows after the cache: hidden, next_embeds [n, D], pos [n, 3] -> (logits [n, V], outputs)."""
        head, n = self.model.mtp, len(hidden)
        mask = torch.cat([torch.ones(n, self.cache.length, dtype=torch.bool), causal(n)], dim=1)
        cos, sin = self.model._rope(pos[None])
        past = None if self.cache.layers is None else self.cache.layers[0]
        y, kv, _ = head.layer(head.fuse(hidden, next_embeds)[None], cos, sin,
                              attention_bias(mask[None], hidden.dtype), past)
        self.cache.commit([kv], commit)
        return self.model.lm_head(head.norm(y[0])), y[0]

    def chain(self, logits, out, first_pos, n):
        """n drafts: the committed rows' last logits give the first, each further one the head applied to its
        own output and guess at the next slot (scratch, never committed)."""
        ids = [int(logits[-1].argmax())]
        mark = self.cache.length
        h, pos = out[-1:], first_pos
        while len(ids) < n:
            emb = self.model.embed(torch.tensor([[ids[-1]]]))[0]
            logits, h = self.step(h, emb, text_positions(pos, 1), commit=1)
            ids.append(int(logits[-1].argmax()))
            pos += 1
        self.truncate(mark)
        return ids

    def truncate(self, n):
        if self.cache.layers is not None:
            self.cache.layers = [(k[:, :, :n], v[:, :, :n]) for k, v in self.cache.layers]


@torch.no_grad()
def mtp_spec(region, drafts=3, max_new=256):
    """Speculation with the MTP head: each round one trunk forward verifies [c, d_1..d_k] causally; the
    matching drafts and the trunk's own next token are committed, then the head reads the new hidden states
    and drafts the next k. `forwards` counts trunk forwards (the head is one layer)."""
    model = region.model
    head = MtpDrafter(region)
    out = Decoded([pick(region.prior, region.prefill_logits)])
    # The prefix's head entries: every slot's next embedding is the following slot's, the prompt's is the
    # first token's.
    first_emb = model.embed(torch.tensor([[out.ids[0]]]))[0]
    next_embeds = torch.cat([region.prefix_embeds[1:], first_emb])
    logits, h = head.step(region.prefix_hidden, next_embeds, region.prefix_pos, commit=len(next_embeds))
    c_pos = region.next_pos
    guesses = head.chain(logits, h, c_pos, drafts) if drafts else []
    while out.ids[-1] != EOS and len(out.ids) < max_new:
        guesses = guesses[:max(0, max_new - len(out.ids) - 1)]
        k = len(guesses)
        hidden = []
        logits, new = region.forward([out.ids[-1]] + guesses, c_pos, causal(1 + k), commit=0, hidden=hidden)
        verified = verify(region.prior, logits, guesses)
        accepted = 0
        while accepted < k and guesses[accepted] == verified[accepted]:
            accepted += 1
        committed = _through_eos(guesses[:accepted] + [verified[accepted]])
        region.cache.commit(new, 1 + accepted)
        out.forwards += 1
        out.rounds.append(len(committed))
        out.ids += committed
        if EOS in committed:
            break
        embeds = model.embed(torch.tensor([committed]))[0]
        logits, h = head.step(hidden[0][:1 + accepted], embeds, text_positions(c_pos, 1 + accepted),
                              commit=1 + accepted)
        c_pos += 1 + accepted
        guesses = head.chain(logits, h, c_pos, drafts) if drafts else []
    out.ids = _truncate(out.ids, max_new)
    return out


@torch.no_grad()
def diffusion(region, tau, block_size=32, max_new=256):
    """Pure masked diffusion: per forward, fill every slot with confidence > tau (at least the best one)."""
    B = block_size
    out = Decoded([], from_prefill=0)
    pending, pos = [], region.next_pos  # committed tokens whose KV is computed in the next forward
    while len(out.ids) < max_new:
        block = [MASK] * B
        while MASK in block:
            logits, _ = region.forward(pending + block, pos - len(pending), draft_mask(len(pending), B),
                                       commit=len(pending))
            logits = logits[len(pending):]
            pending = []
            out.forwards += 1
            probs = logits.softmax(-1)
            conf, tok = probs.max(-1)
            open_slots = [j for j in range(B) if block[j] == MASK]
            fill = [j for j in open_slots if conf[j] > tau] or [max(open_slots, key=lambda j: conf[j])]
            for j in fill:
                block[j] = int(tok[j])
            if EOS in block and MASK not in block[:block.index(EOS)]:
                break  # everything up to the end of the text is decided; the rest is never emitted
        out.ids += block
        pending, pos = block, pos + B
        if EOS in block:
            break
    out.ids = _truncate(out.ids, max_new)
    return out


def _through_eos(ids):
    """A round's commits end at EOS: drafts the verifier happened to match after it are not output."""
    return ids[:ids.index(EOS) + 1] if EOS in ids else ids


def _truncate(ids, max_new):
    ids = ids[:max_new]
    if EOS in ids:
        ids = ids[:ids.index(EOS) + 1]
    return ids
