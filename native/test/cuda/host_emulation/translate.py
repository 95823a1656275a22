"""Rewrites a CUDA source for the host emulation (cuda_runtime.h beside this file):
`kernel<T...><<<grid, block, shared, stream>>>(args);` becomes
`emu::launch(grid, block, shared, stream, [=] { kernel<T...>(args); });`, and `extern __shared__ float name[];`
becomes a pointer to the emulated dynamic shared memory.

    python3 translate.py in.cu out.cc
"""
import re
import sys


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket that closes the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    raise SystemExit(f"unbalanced {open_ch} at offset {i}")


def translate(src):
    src = re.sub(r"extern __shared__ float (\w+)\[\];", r"float* \1 = emu::dynamic_shared();", src)
    out, pos = [], 0
    for m in re.finditer(r"<<<", src):
        if m.start() < pos:
            continue
        # The kernel expression: an identifier, optionally with template arguments, right before <<<.
        k = m.start()
        if src[k - 1] == ">":
            depth, k = 0, k - 1
            while True:
                if src[k] == ">":
                    depth += 1
                elif src[k] == "<":
                    depth -= 1
                    if depth == 0:
                        break
                k -= 1
        name = re.search(r"[\w:]+$", src[:k])
        start = name.start()
        end_cfg = src.index(">>>", m.end())
        cfg = [c.strip() for c in src[m.end():end_cfg].split(",")]
        cfg += ["0", "0"][: max(0, 4 - len(cfg))]
        args_open = end_cfg + 3
        args_end = matching(src, args_open, "(", ")")
        kernel = src[start:m.start()]
        out.append(src[pos:start])
        out.append(f"emu::launch({cfg[0]}, {cfg[1]}, {cfg[2]}, {cfg[3]}, [=] {{ {kernel}{src[args_open:args_end]}; }})")
        pos = args_end
    out.append(src[pos:])
    return "".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        text = f.read()
    with open(sys.argv[2], "w") as f:
        f.write(translate(text))
