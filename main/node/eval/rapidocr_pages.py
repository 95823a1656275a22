"""The evaluation's second peer: RapidOCR (PP-OCRv6 small detector and recogniser, plain CTC) reading page
images named on standard input, one JSON line per request, answered in order with one JSON line each:

  {"image": "/abs/page.png"}  ->  {"lines": [{"text": "...", "score": 0.97, "box": [x0, y0, x1, y1],
                                   "words": [{"text": "...", "box": [x0, y0, x1, y1]}, ...]}, ...], "ms": 812}
  or {"error": "one line"}

Lines come in RapidOCR's own order (top to bottom, then left to right), as its text output has them. Each
process runs onnxruntime on one thread: the evaluation reads a page per core, as it does for Tesseract and
for Saccade. Run by main/node/eval/rapidocr.ts in the environment `npm run setup:rapidocr` makes.
"""
import json
import sys
import time

from rapidocr import RapidOCR


def _box(points):
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    return [min(xs), min(ys), max(xs), max(ys)]


def _lines(result):
    if result.txts is None:
        return []
    words = result.word_results if result.word_results and all(result.word_results) else [None] * len(result.txts)
    out = []
    for text, score, points, line_words in zip(result.txts, result.scores, result.boxes, words):
        line = {"text": text, "score": float(score), "box": _box(points), "words": []}
        for word in line_words or ():
            word_text, _, word_points = word
            if word_text.strip() and word_points:
                line["words"].append({"text": word_text.strip(), "box": _box(word_points)})
        out.append(line)
    return out


def main():
    engine = RapidOCR(params={
        "Global.log_level": "error",
        "EngineConfig.onnxruntime.intra_op_num_threads": 1,
        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    })
    print(json.dumps({"ready": True}), flush=True)
    for raw in sys.stdin:
        try:
            request = json.loads(raw)
            started = time.perf_counter()
            result = engine(request["image"], return_word_box=True)
            reply = {"lines": _lines(result), "ms": round((time.perf_counter() - started) * 1000)}
        except Exception as err:  # one page's failure is that page's answer; the next page is read
            reply = {"error": f"{type(err).__name__}: {err}".splitlines()[0]}
        print(json.dumps(reply, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
