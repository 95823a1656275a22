"""The encoder's CTC reading as a prior on the decoder's choices (docs/decisions/0022).

A line model's encoder has its own CTC head, whose distribution over our classes (line_reader.fold) every
image token already reads. Where the decoder and that reading disagree, neither is right every time: the
decoder knows words, case and spacing, the CTC head knows where each glyph sits and never loses its place.
So the verifier picks each token by the joint score of joint CTC/attention decoding:

    (1 - w) log p_decoder(c | prefix) + w log (psi(prefix + c) / psi(prefix))

where psi(g) is the CTC probability that the line's reading starts with g (the prefix probability of
Watanabe et al., "Hybrid CTC/Attention Architecture for End-to-End Speech Recognition", 2017), scored for
every token of the vocabulary at once. End of text scores the probability that the reading is exactly the
prefix. The state is the forward variables of the committed prefix in probability space (float64), rescaled
after every commit so that psi(prefix) = 1; a score is then just psi(prefix + c).

- A character the encoder's dictionary lacks reads the column of the character the encoder shows for it
  (read_as, shipped in config.json: "ö" as "o", "–" as "-", "¹" as "1"), so the decoder alone decides between
  the two; one with no such stand-in (euro sign, fractions) reads the column of "a character we lack". Read
  as "any character" instead, the decoder wrote "€" and "ö" over clear readings (scribe lines 2.4% against
  2.1%). An accented letter the dictionary has reads its base letter's column all the same: the encoder
  learnt them from a few Latin lines among Chinese ones and reads a typewritten "ä" as "&" or "ñ" (German
  typescripts: "M&nner", "zunçhst"), so the prior judges the letter and the decoder its accent; a typeset
  quote reads the plain one's column (TYPOGRAPHIC: the encoder reads "’" as "'"), the decoder its curl.
- Tokens that are not one character (specials, table tags, LaTeX commands) get the floor: the CTC head can
  never show them.

Greedy only: the verifier of every strategy (AR, self-spec, MTP) uses the same rule, so speculation stays
byte-identical to AR. The engine's decode/reading_prior.cc (its forward variables in decode/ctc_prefix.cc) is
the same computation in the same order.
"""
import copy
import unicodedata

import numpy as np

from .tokenizer import Tokenizer
from .vocab import EOS

FLOOR = 1e-30  # the smallest prefix-score ratio: a reading the CTC head rules out costs w * 69 nats
# Columns where the prefix ends with less than this share of its largest such probability add nothing a
# double can tell from rounding to any score that can win: skipped (the prefix's mass sits in a few columns).
WINDOW = 1e-20
# The weight a line model ships with: the best of 0, 0.3, 0.5 and 0.7 on 200 held-out generated lines
# (CER 1.72%, 1.13%, 0.88%, 0.98%; docs/decisions/0022).
WEIGHT = 0.5


def named_tokens(ctc_map, vocab_size):
    """[V] bool: the tokens some CTC class folds onto."""
    named = np.zeros(vocab_size, dtype=bool)
    named[[int(c) for c in ctc_map if int(c) < vocab_size]] = True
    return named


# Typeset forms whose plain one the encoder shows for them: it reads a curly apostrophe as a straight one.
TYPOGRAPHIC = {"–": "-", "‘": "'", "’": "'", "“": '"', "”": '"', "„": '"'}


def read_as(tokens, ctc_map, vocab_size):
    """config.json's reading_prior.read_as: each single-character token -> the character the encoder shows
    for it, where that is another one it names: the base letter of an accented one (NFKD, marks dropped,
    named or not), a superscript's digit, the plain form of a typeset quote or dash (TYPOGRAPHIC)."""
    named, vocab = named_tokens(ctc_map, vocab_size), {t: i for i, t in enumerate(tokens[:vocab_size])}
    out = {}
    for t in tokens[:vocab_size]:
        if len(t) != 1:
            continue
        base = TYPOGRAPHIC.get(t) or "".join(
            ch for ch in unicodedata.normalize("NFKD", t) if not unicodedata.combining(ch))
        if base != t and base in vocab and named[vocab[base]]:
            out[t] = base
    return out


def token_columns(folded, tokens, ctc_map, vocab_size, stand_ins):
    """(the tokens the reading can show: the single characters [L]; per column, their CTC probability
    [T, L]; that of blank [T]), float64: a character with a stand-in (read_as) reads the stand-in's column,
    any other that some CTC class folds onto its own, the rest that of "a character we lack"; every other
    token (and every id past the tokenizer's) is never shown (see the module note)."""
    V = vocab_size
    y = folded.double().numpy()
    named, vocab = named_tokens(ctc_map, V), {t: i for i, t in enumerate(tokens[:V])}
    live, columns = [], []
    for i, t in enumerate(tokens[:V]):
        if len(t) == 1:
            live.append(i)
            columns.append(vocab[stand_ins[t]] if t in stand_ins else i if named[i] else V + 1)
    return np.array(live, dtype=np.int64), np.ascontiguousarray(y[:, columns]), y[:, V].copy()


class ReadingPrior:
    def __init__(self, folded, tokens, ctc_map, vocab_size, eos, weight, stand_ins):
        self.live, self.y, self.blank = token_columns(folded, tokens, ctc_map, vocab_size, stand_ins)
        self.T, self.V = self.y.shape[0], vocab_size
        self.slot = {int(c): i for i, c in enumerate(self.live)}  # token id -> its column of y
        self.eos, self.weight = eos, weight
        self.rn = np.zeros(self.T)  # the prefix's paths ending in its last character at column t
        self.rb = np.cumprod(self.blank)  # ... ending in blank; the empty prefix: all blank so far
        self.last = -1

    def columns(self):
        """The columns t >= 1 whose terms the scores add: where the prefix can end at t - 1 (WINDOW)."""
        phi = self.rb[:self.T - 1] + self.rn[:self.T - 1]
        return np.nonzero(phi >= phi.max() * WINDOW)[0] + 1 if self.T > 1 else np.zeros(0, dtype=np.int64)

    def scores(self):
        """psi(prefix + c) / psi(prefix) for every token c, with end of text at index eos: the paths that
        emit the prefix in columns < t and start c at column t, summed over t (those columns() keeps)."""
        y, T = self.y, self.T
        phi = self.rb + self.rn
        part = y[0].copy() if self.last < 0 else np.zeros(len(self.live))
        ts = self.columns()
        for t in ts:
            part = part + phi[t - 1] * y[t]
        if self.last in self.slot:  # a repeat needs a blank between: only the paths that end in blank extend it
            s, yl = 0.0, y[:, self.slot[self.last]]
            for t in ts:
                s = s + self.rb[t - 1] * yl[t]
            part[self.slot[self.last]] = s
        psi = np.zeros(self.V)
        psi[self.live] = part
        psi[self.eos] = phi[T - 1]
        return psi

    def choose(self, logits):
        """The verifier's token for one row of decoder logits: the joint argmax (first maximum)."""
        z = logits.double().numpy()
        # Log-probabilities less their common normaliser, which moves every joint score alike.
        lp = z - z.max()
        joint = (1.0 - self.weight) * lp + self.weight * np.log(np.maximum(self.scores(), FLOOR))
        return int(joint.argmax())

    def commit(self, c):
        """Extends the prefix by token c (end of text: nothing to extend)."""
        if c == self.eos:
            return
        T = self.T
        y = self.y[:, self.slot[c]] if c in self.slot else np.zeros(T)
        phi = self.rb + self.rn if c != self.last else self.rb.copy()
        rn, rb = np.zeros(T), np.zeros(T)
        rn[0] = y[0] if self.last < 0 else 0.0
        psi = rn[0]
        for t in range(1, T):
            rn[t] = (rn[t - 1] + phi[t - 1]) * y[t]
            rb[t] = (rb[t - 1] + rn[t - 1]) * self.blank[t]
            psi = psi + phi[t - 1] * y[t]
        scale = 1.0 / psi if psi > 0 else 1.0
        self.rn, self.rb, self.last = rn * scale, rb * scale, c


def for_region(model, folded):
    """The model's reading prior over one line's folded CTC distribution, or None when it has none."""
    config = model.config.get("reading_prior", {})
    if folded is None or config.get("weight", 0.0) <= 0:
        return None
    V = model.config["text_config"]["vocab_size"]
    return ReadingPrior(folded, Tokenizer().tokens[:V], model.ctc_map.tolist(), V, EOS, config["weight"],
                        config.get("read_as", {}))


def pick(prior, logits):
    """The verifier's greedy token for one row; commits it to the prior."""
    if prior is None:
        return int(logits.argmax())
    c = prior.choose(logits)
    prior.commit(c)
    return c


def verify(prior, logits, guesses):
    """The verifier's tokens for rows [c, g_1..g_k]: row i's given the guesses before it, up to the first
    row whose token is not the guess after it (inclusive). Each is committed to the prior as it is taken,
    which is what the caller commits."""
    out = []
    for i in range(len(logits)):
        out.append(pick(prior, logits[i]))
        if i >= len(guesses) or guesses[i] != out[-1]:
            break
    return out


def draft(prior, rows):
    """Draft tokens for rows that predict consecutive slots after the committed text: each the joint choice
    given the drafts before it (on a scratch copy of the prior, which stays as it is), or the argmax without
    a prior. Drafting as the verifier will choose makes more drafts hold."""
    if prior is None:
        return rows.argmax(-1).tolist()
    scratch, out = copy.copy(prior), []
    for row in rows:
        out.append(scratch.choose(row))
        scratch.commit(out[-1])
    return out
