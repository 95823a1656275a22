"""Golden files for the engine's byte-level BPE reader (native/src/model/bpe_tokenizer.h), from Hugging Face
`tokenizers` itself: a small byte-level BPE trained on our own text (the synthetic generator's pinned prose
and word list, plus generated CJK, emoji and number strings) with GLM-4's Split pattern, written with 10,000
test strings and the library's ids. Layout: native/test/golden/bpe/README.md.

    nice -n 19 /opt/t3/bin/python training/glm_ocr/make_bpe_golden.py native/test/golden/bpe

Seeded, single-threaded, so a rerun writes the same bytes.
"""

import argparse
import json
import os
import random
import re
import struct
import sys
import unicodedata

os.environ["RAYON_NUM_THREADS"] = "1"  # deterministic training, and no more than one core

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # training/, for saccade.synth
sys.path.insert(0, HERE)

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402

from make_unicode_tables import char_class  # noqa: E402
from saccade.synth import corpus  # noqa: E402

SEED = 23
VOCAB_SIZE = 3000
CASES = 10_000
GPT2_CASES = 3_000  # the first cases again, through tokenizer_gpt2.json
STREAMS = 1_000  # random id sequences, for the decoder's handling of bytes that form no character
SAME = 0xFFFF  # in place of a decoded text's length: equal to the case's text
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
GLM4_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
SPECIAL = ["<|endoftext|>", "[MASK]", "[gMASK]", "[sMASK]", "<sop>", "<eop>", "<|system|>", "<|user|>",
           "<|assistant|>", "<|begin_of_image|>", "<|end_of_image|>", "<|image|>"]
# Not special, as table markup tokens would be; "<br>" is matched on the raw text, the others in the library's
# second, "normalized" pass.
ADDED = [AddedToken(t, special=False, normalized=True) for t in ("<td>", "</td>", "<tr>", "</tr>")] + \
        [AddedToken("<br>", special=False, normalized=False)]
MAGIC = b"SBPEGLD1"

PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" + "“”‘’—–…·•§¶©®™°±×÷¿¡«»‹›†‡‰′″€£¥¢"
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\r\n", "\r", "\n\n", "\u00a0", "\u3000", "\u2009", "\x0b", "\x0c",
          "\x85", "\u2028", "\u2029", " \n", "\t\n", "\u200b"]
CJK_PUNCT = "、。「」『』（）！？：；，《》〈〉【】〜・ー"


def assigned(cp: int) -> bool:
    return unicodedata.category(chr(cp)) not in ("Cn", "Cs")


def pool(rng: random.Random, first: int, last: int, n: int) -> list[str]:
    cps = [cp for cp in range(first, last + 1) if assigned(cp)]
    return [chr(cp) for cp in sorted(rng.sample(cps, min(n, len(cps))))]


class Alphabets:
    def __init__(self, rng: random.Random):
        self.han = pool(rng, 0x4E00, 0x9FFF, 700)
        self.rare_han = pool(rng, 0x3400, 0x4DBF, 100) + pool(rng, 0x20000, 0x2A6DF, 50)
        self.kana = pool(rng, 0x3041, 0x3096, 86) + pool(rng, 0x30A1, 0x30FA, 90)
        self.hangul = pool(rng, 0xAC00, 0xD7A3, 250)
        self.emoji = (pool(rng, 0x1F600, 0x1F64F, 80) + pool(rng, 0x1F300, 0x1F5FF, 120)
                      + pool(rng, 0x1F900, 0x1F9FF, 80) + pool(rng, 0x2600, 0x26FF, 40))
        self.scripts = {
            "greek": pool(rng, 0x0391, 0x03C9, 60), "cyrillic": pool(rng, 0x0410, 0x044F, 64),
            "arabic": pool(rng, 0x0621, 0x064A, 40) + pool(rng, 0x064B, 0x0652, 8),
            "hebrew": pool(rng, 0x05D0, 0x05EA, 27), "devanagari": pool(rng, 0x0905, 0x094D, 60),
            "thai": pool(rng, 0x0E01, 0x0E3A, 50), "latin": pool(rng, 0x00C0, 0x024F, 120),
        }


def cased(rng: random.Random, w: str) -> str:
    r = rng.random()
    if r < 0.55:
        return w
    if r < 0.75:
        return w[:1].upper() + w[1:]
    if r < 0.88:
        return w.upper()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in w)


def prose(rng: random.Random) -> str:
    words = corpus.words_span(rng, rng.randint(2, 10))
    out = words[0]
    for w in words[1:]:
        out += (rng.choice(SPACES) if rng.random() < 0.12 else " ") + w
    if rng.random() < 0.15:
        out = rng.choice(SPACES) + out
    if rng.random() < 0.15:
        out += rng.choice(SPACES)
    return out


def dictionary(rng: random.Random) -> str:
    words = corpus.dictionary_words()
    return " ".join(cased(rng, rng.choice(words)) + (rng.choice(",.;:!?") if rng.random() < 0.15 else "")
                    for _ in range(rng.randint(1, 6)))


CONTRACTED = ["I'm", "you're", "he's", "she'd", "we've", "they'll", "it's", "don't", "can't", "won't", "isn't",
              "o'clock", "rock'n'roll", "O'Neil", "y'all", "ma'am", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d",
              "'sup", "''s", "'s'", "l'été", "'ſ", "'ſt", "it'ſ", "'ſtill", "'ſame", "I'M", "WE'RE", "They'Ll",
              "SHE'D", "'Re", "'rE", "'LL", "'lL", "'Ve", "'vE", "'S", "'T", "'M", "'D", "dog's", "dogs'", "'twas",
              "’s", "‘quoted’"]


def contractions(rng: random.Random) -> str:
    parts = [cased(rng, rng.choice(CONTRACTED)) if rng.random() < 0.3 else rng.choice(CONTRACTED)
             for _ in range(rng.randint(1, 5))]
    return rng.choice([" ", "", "\n", " '"]).join(parts)


def number(rng: random.Random) -> str:
    kind = rng.randrange(14)
    n = rng.randrange(10 ** rng.randint(1, 12))
    if kind == 0:
        return str(n)
    if kind == 1:
        return f"{n:,}"
    if kind == 2:
        return f"{rng.uniform(-1e4, 1e4):.{rng.randint(1, 6)}f}"
    if kind == 3:
        return f"{rng.randint(1, 31):02d}/{rng.randint(1, 12):02d}/{rng.randint(1900, 2099)}"
    if kind == 4:
        return f"+{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}-{rng.randint(10, 99)}"
    if kind == 5:
        return f"{rng.randint(0, 23)}:{rng.randint(0, 59):02d}{rng.choice(['', ' am', 'pm', 'h'])}"
    if kind == 6:
        return f"v{rng.randint(0, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 99)}"
    if kind == 7:
        return str(n) + rng.choice(["st", "nd", "rd", "th", "%", " kg", "km/h", "x", "€", "$"])
    if kind == 8:  # fullwidth, Arabic-Indic, Devanagari, Thai digits (all \p{N})
        base = rng.choice([0xFF10, 0x0660, 0x06F0, 0x0966, 0x0E50])
        return "".join(chr(base + int(d)) for d in str(n))
    if kind == 9:  # \p{N} that is no decimal digit
        return "".join(rng.choice("²³¹¼½¾⅓⅔ⅠⅡⅢⅣⅫ①②③⑩⓪") for _ in range(rng.randint(1, 5)))
    if kind == 10:
        return " ".join(str(rng.randrange(10 ** rng.randint(1, 5))) for _ in range(rng.randint(2, 6)))
    if kind == 11:
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(10, 40)))
    if kind == 12:
        return f"{rng.randint(1, 9)}e{rng.choice(['', '-', '+'])}{rng.randint(1, 30)}"
    return f"({n}) [{n % 97}] {{{n % 13}}}"


def punctuation(rng: random.Random) -> str:
    out = ""
    for _ in range(rng.randint(1, 5)):
        out += "".join(rng.choice(PUNCT) for _ in range(rng.randint(1, 6)))
        out += rng.choice(["", "", " ", "\n", "\r\n", "\t", " x", "a"])
    return out


def whitespace(rng: random.Random) -> str:
    out = ""
    for _ in range(rng.randint(1, 6)):
        out += "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.7:
            out += rng.choice(["word", "A", "x1", "12", "!", "é", "中文", "I'm", "-", "\"q\"", "ok."])
    return out


def cjk(rng: random.Random, a: Alphabets) -> str:
    out = ""
    for _ in range(rng.randint(1, 5)):
        src = rng.choice([a.han, a.han, a.han, a.kana, a.hangul, a.rare_han])
        out += "".join(rng.choice(src) for _ in range(rng.randint(1, 10)))
        r = rng.random()
        if r < 0.4:
            out += rng.choice(CJK_PUNCT)
        elif r < 0.55:
            out += rng.choice([" ", "\n", "\u3000", "ABC", "2024年", "12", "ＯＫ", "（注）"])
    return out


def emoji(rng: random.Random, a: Alphabets) -> str:
    out = ""
    for _ in range(rng.randint(1, 5)):
        kind = rng.randrange(7)
        e = rng.choice(a.emoji)
        if kind == 0:
            out += e
        elif kind == 1:
            out += e + chr(0x1F3FB + rng.randrange(5))  # skin tone modifier
        elif kind == 2:
            out += "\u200d".join(rng.choice(a.emoji) for _ in range(rng.randint(2, 4)))  # ZWJ sequence
        elif kind == 3:
            out += chr(0x1F1E6 + rng.randrange(26)) + chr(0x1F1E6 + rng.randrange(26))  # flag
        elif kind == 4:
            out += rng.choice("0123456789#*") + "\ufe0f\u20e3"  # keycap
        elif kind == 5:
            out += e + "\ufe0f"
        else:
            out += rng.choice([" ", "", "!", " ok ", "\n", "haha", "。"]) + e
    return out


def scripts(rng: random.Random, a: Alphabets) -> str:
    out = []
    for _ in range(rng.randint(1, 5)):
        name = rng.choice(sorted(a.scripts))
        w = "".join(rng.choice(a.scripts[name]) for _ in range(rng.randint(1, 8)))
        if rng.random() < 0.3:
            w = unicodedata.normalize(rng.choice(["NFD", "NFC", "NFKD"]), w)
        if rng.random() < 0.15:
            w = "caf\u00e9 na\u0308ive " + w  # a combining mark is not \p{L}: it splits the word
        out.append(w)
    return rng.choice([" ", "", "-", "\n"]).join(out)


def with_tokens(rng: random.Random, a: Alphabets) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        n = rng.randint(1, 6)
        return "<|begin_of_image|>" + "<|image|>" * n + "<|end_of_image|>" + rng.choice(
            ["Text Recognition:", "Table Recognition:", "Formula Recognition:", "\n", " ocr this"])
    if kind == 1:
        return "[gMASK]<sop><|user|>\n" + prose(rng) + "<|assistant|>" + rng.choice(["", "\n", " ", "\n\n"])
    if kind == 2:
        cells = "".join("<td>" + rng.choice([number(rng), dictionary(rng), "", " "]) + "</td>"
                        for _ in range(rng.randint(1, 4)))
        return "<tr>" + cells + "</tr>" + rng.choice(["", "\n", "<br>", "</tr><tr>"])
    if kind == 3:  # tokens against letters, spaces, newlines, and each other
        toks = SPECIAL + [t.content for t in ADDED]
        return "".join(rng.choice(toks) + rng.choice(["", "a", " ", "\n", "abc", "'s", "1", " x ", "中"])
                       for _ in range(rng.randint(1, 5)))
    if kind == 4:  # near misses: a token's prefix, wrong case, inside brackets
        return rng.choice(["<|imag", "<sop", "[gMASK", "<|IMAGE|>", "<<sop>>", "[[gMASK]]", "<|image|",
                           "<td", "td>", "< td>", "<BR>", "<br", "[MASK][MASK]", "<|<|image|>|>"]) + prose(rng)
    return prose(rng) + rng.choice(SPECIAL) + rng.choice([prose(rng), cjk(rng, a), ""])


def mixed(rng: random.Random, a: Alphabets) -> str:
    makers = [prose, dictionary, contractions, number, punctuation, whitespace]
    out = ""
    for _ in range(rng.randint(2, 4)):
        r = rng.random()
        if r < 0.2:
            out += cjk(rng, a)
        elif r < 0.3:
            out += emoji(rng, a)
        elif r < 0.4:
            out += scripts(rng, a)
        else:
            out += rng.choice(makers)(rng)
        out += rng.choice(["", " ", "\n", ""])
    return out


EDGE = ["", " ", "  ", "\n", "\r\n", "\t", "a", "A", "1", "!", "'", "中", "😀", "\x00", "\x00a\x00", "\x1b[0m",
        "\x1c\x1d\x1e\x1f", " \x1cb", "a \x85b", "\x7f", "\ufeffBOM", "\ufffd", "\ue000\uf8ff", "\U0010fffd",
        "\uffff\U0001ffff", "a" * 600, "中" * 400, "ab" * 300, " " * 300 + "x", "\n" * 50, "1" * 100,
        "!" * 200, "a\u0301" * 50, "\r\r\n\n\r", " \t \n \r\n x", "x\u00a0\u00a0y", "\u3000\u3000全角",
        "Hello, World!", "  leading", "trailing  ", "tab\there", "new\nline", "crlf\r\nline", "'s", "'S", "'ſa",
        "'ﬆa", "don'T", "I'M", "ß ẞ ǅ ǈ", "Ǆ", "ﬁ ﬂ", "ℌ ℍ ℕ", "µ", "ª º", "Ⅻ", "⁴²", "x²", "e\u0301te",
        "\u0300\u0301", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "<|image|>", "<|image|><|image|>",
        "[gMASK]<sop>", "<td></td>", "<br><br>", "a<br>b", "x<td>y"]


def test_strings(rng: random.Random, a: Alphabets) -> list[str]:
    makers = [(prose, 2000), (dictionary, 700), (contractions, 600), (number, 900), (punctuation, 600),
              (whitespace, 1000), (lambda r: cjk(r, a), 1200), (lambda r: emoji(r, a), 800),
              (lambda r: scripts(r, a), 600), (lambda r: with_tokens(r, a), 900)]
    out = list(EDGE)
    for make, n in makers:
        out += [make(rng) for _ in range(n)]
    out += [mixed(rng, a) for _ in range(CASES - len(out))]
    return out


def training_text(rng: random.Random, a: Alphabets) -> list[str]:
    text = [" ".join(p) for p in corpus.passages()]
    words = corpus.dictionary_words()
    text += [" ".join(cased(rng, rng.choice(words)) for _ in range(12)) for _ in range(2000)]
    text += [cjk(rng, a) for _ in range(4000)]
    text += [emoji(rng, a) for _ in range(1500)]
    text += [number(rng) for _ in range(2000)]
    text += [scripts(rng, a) for _ in range(1000)]
    # Old prints' long s, so merges such as "ſt" exist and a contraction "'ſ" split wrongly would show in ids.
    text += [re.sub(r"s(?=[a-z])", "ſ", t) for t in text[:400]]
    return text


def train(rng: random.Random, a: Alphabets) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(GLM4_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, min_frequency=2, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(training_text(rng, a), trainer=trainer)
    tok.add_tokens(ADDED)
    return tok


def check_char_classes() -> set[int]:
    """The code points where the library's \\p{L} / \\p{N} / \\s differ from the generated table. The library's
    Oniguruma has a newer Unicode than Python's unicodedata, so these must all be unassigned in the latter;
    test strings avoid them."""
    split = pre_tokenizers.Split(Regex(GLM4_PATTERN), behavior="isolated", invert=False)
    differ = set()
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp < 0xE000 or cp in (0x0A, 0x0D):  # \r \n have their own alternatives
            continue
        c = chr(cp)
        pieces = len(split.pre_tokenize_str("a" + c + "a"))  # a letter joins, a number stands alone
        lib = {1: "L", 3: "N"}.get(pieces) or (None if len(split.pre_tokenize_str("!" + c)) == 1 else "S")
        if lib != char_class(cp):
            differ.add(cp)
    wrong = [hex(cp) for cp in sorted(differ) if assigned(cp)]
    if wrong:
        raise SystemExit(f"the table disagrees with the library on assigned code points: {wrong[:20]}")
    print(f"char classes: the library differs on {len(differ)} code points unassigned in Unicode "
          f"{unicodedata.unidata_version}")
    return differ


def byte_char(b: int) -> str:
    """GPT-2's byte-level alphabet: printable Latin-1 bytes stand for themselves, the others for U+0100 on."""
    def printable(x: int) -> bool:
        return 0x21 <= x <= 0x7E or 0xA1 <= x <= 0xAC or x >= 0xAE
    return chr(b) if printable(b) else chr(0x100 + sum(not printable(x) for x in range(b)))


def pieces_hash(split, text: str) -> int:
    """FNV-1a over the byte offsets where the pattern's pieces of `text` end (each as 4 little-endian bytes)."""
    h, end = 0x811C9DC5, 0
    for piece, _ in split.pre_tokenize_str(text):
        end += len(piece.encode())
        for byte in struct.pack("<I", end):
            h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def u16s(ids: list[int]) -> bytes:
    return struct.pack(f"<H{len(ids)}H", len(ids), *ids)


def blob(b: bytes) -> bytes:
    assert len(b) < SAME
    return struct.pack("<H", len(b)) + b


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    out_dir = p.parse_args().out_dir
    differ = check_char_classes()
    rng = random.Random(SEED)
    a = Alphabets(rng)
    trained = train(rng, a)
    assert trained.get_vocab_size() < 65536
    # GLM-OCR's tokenizer.json sets ignore_merges (docs/glm-ocr.md, 6); GPT-2's shape is a lone ByteLevel that
    # splits with its own pattern, without it.
    spec = json.loads(trained.to_str())
    spec["model"]["ignore_merges"] = True
    tok = Tokenizer.from_str(json.dumps(spec))
    gpt2 = Tokenizer.from_str(trained.to_str())
    gpt2.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)

    cases = test_strings(rng, a)
    bad = [s for s in cases if any(ord(c) in differ for c in s)]
    assert not bad, f"test strings with code points the table cannot know: {bad[:3]}"
    splits = [pre_tokenizers.Split(Regex(p), behavior="isolated", invert=False) for p in (GLM4_PATTERN, GPT2_PATTERN)]
    body = [MAGIC, struct.pack("<I", len(cases))]
    for s in cases:
        ids = tok.encode(s, add_special_tokens=False).ids
        if tok.decode(ids, skip_special_tokens=False) != s:
            raise SystemExit(f"the library does not round-trip {s!r}")
        skipped = tok.decode(ids, skip_special_tokens=True)
        body += [blob(s.encode()), u16s(ids), blob(skipped.encode()) if skipped != s else struct.pack("<H", SAME),
                 struct.pack("<2I", *(pieces_hash(split, s) for split in splits))]
    body.append(struct.pack("<I", GPT2_CASES))
    body += [u16s(gpt2.encode(s, add_special_tokens=False).ids) for s in cases[:GPT2_CASES]]
    # Random id sequences, half of them single bytes of multi-byte characters, so many end or break inside one.
    byte_ids = [tok.token_to_id(byte_char(b)) for b in range(0x80, 0x100)]
    body.append(struct.pack("<I", STREAMS))
    for _ in range(STREAMS):
        ids = [rng.choice(byte_ids) if rng.random() < 0.5 else rng.randrange(tok.get_vocab_size())
               for _ in range(rng.randint(1, 12))]
        body += [u16s(ids), blob(tok.decode(ids, skip_special_tokens=False).encode())]

    os.makedirs(out_dir, exist_ok=True)
    tok.save(os.path.join(out_dir, "tokenizer.json"), pretty=False)
    gpt2.save(os.path.join(out_dir, "tokenizer_gpt2.json"), pretty=False)
    with open(os.path.join(out_dir, "cases.bin"), "wb") as f:
        f.write(b"".join(body))
    sizes = {n: os.path.getsize(os.path.join(out_dir, n)) for n in ("tokenizer.json", "tokenizer_gpt2.json",
                                                                      "cases.bin")}
    print(f"{len(cases)} cases, {STREAMS} id streams, vocab {tok.get_vocab_size()}: {sizes}")


if __name__ == "__main__":
    main()
