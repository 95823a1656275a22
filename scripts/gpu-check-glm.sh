#!/usr/bin/env bash
# GLM-OCR part of the GPU check (docs/gpu-check.md), run by scripts/gpu-check.sh and testable alone on a CPU:
#   1. the engine's GLM-OCR golden tests (native/test/glm_ocr_test.cc) under SACCADE_BACKEND=<backend> (the
#      CPU suite runs them already): on CUDA, the parity of its every op with transformers' goldens;
#   2. a speed run (saccade_glm_bench) on a random checkpoint with GLM-OCR's real shapes, written into a
#      temporary folder by training/glm_ocr/make_full_random.py (numpy) and removed afterwards.
# Writes OUT_DIR/glm-ocr.json (one status per part and backend) plus the logs and bench JSON beside it.
# Nothing here fails the caller: the exit status is 0 unless the arguments are wrong.
#
#   scripts/gpu-check-glm.sh BUILD_DIR OUT_DIR [--test-backends cuda] [--bench-backends "cpu cuda"] [--scale 1]
#                            [--width 768 --height 1024] [--max-new 64] [--bench-limit 150]
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:?build folder with saccade_tests and saccade_glm_bench}
OUT_DIR=${2:?results folder}
shift 2
TEST_BACKENDS=cuda
BENCH_BACKENDS="cpu cuda"
SCALE=1
WIDTH=768
HEIGHT=1024
MAX_NEW=64
BENCH_LIMIT=150
while [ $# -gt 0 ]; do
  case $1 in
    --test-backends) TEST_BACKENDS=$2 ;;
    --bench-backends) BENCH_BACKENDS=$2 ;;
    --scale) SCALE=$2 ;;
    --width) WIDTH=$2 ;;
    --height) HEIGHT=$2 ;;
    --max-new) MAX_NEW=$2 ;;
    --bench-limit) BENCH_LIMIT=$2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done
mkdir -p "$OUT_DIR"
PARTS=""
add() { PARTS="$PARTS${PARTS:+,}
  $1"; }

# A status from the golden tests' output: "using the CPU backend" means the run never reached the backend
# asked for.
for b in $TEST_BACKENDS; do
  log="$OUT_DIR/glm-ocr-tests-$b.log"
  SACCADE_BACKEND=$b timeout --kill-after=5 120 "$BUILD/saccade_tests" glm_ocr > "$log" 2>&1
  rc=$?
  if grep -q "using the CPU backend" "$log" && [ "$b" != cpu ]; then status="no $b device (ran on the CPU)"
  elif grep -q "is not compiled in" "$log"; then status="$b not compiled in"
  elif [ $rc -eq 0 ]; then status=passed
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status="timed out"
  else status=failed; fi
  counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" | tail -1)
  echo "glm-ocr golden tests on $b: $status (${counts:-no summary line})"
  add "{\"part\": \"golden_tests\", \"backend\": \"$b\", \"status\": \"$status\", \"exit\": $rc, \"counts\": \"$counts\"}"
done

FOLDER=$(mktemp -d "${TMPDIR:-/tmp}/saccade-glm-full.XXXXXX")
trap 'rm -rf "$FOLDER"' EXIT
trap 'exit 143' TERM INT  # the caller's time limit: still remove the 2.6 GB folder
t0=$(date +%s)
if python3 -c "import numpy" 2> /dev/null &&
   timeout 180 python3 "$ROOT/training/glm_ocr/make_full_random.py" "$FOLDER" --scale "$SCALE" \
     > "$OUT_DIR/glm-full-random.log" 2>&1; then
  echo "random checkpoint (scale $SCALE): $(tail -1 "$OUT_DIR/glm-full-random.log"), $(($(date +%s) - t0))s"
  for b in $BENCH_BACKENDS; do
    json="$OUT_DIR/glm-bench-$b.json"
    SACCADE_BACKEND=$b timeout --kill-after=5 "$BENCH_LIMIT" "$BUILD/saccade_glm_bench" "$FOLDER" --backend "$b" \
      --out "$json" --width "$WIDTH" --height "$HEIGHT" --max-new "$MAX_NEW" > "$OUT_DIR/glm-bench-$b.log" 2>&1
    rc=$?
    case $rc in
      0) status=done ;;
      124 | 137) status="timed out after ${BENCH_LIMIT}s" ;;
      *) status=failed ;;
    esac
    grep -q "is not compiled in" "$OUT_DIR/glm-bench-$b.log" && status="$b not compiled in"
    grep -q "using the CPU backend" "$OUT_DIR/glm-bench-$b.log" && [ "$b" != cpu ] && status="no $b device (ran on the CPU)"
    cat "$OUT_DIR/glm-bench-$b.log"
    echo "glm-ocr speed run on $b: $status"
    result=null
    [ -s "$json" ] && result=$(cat "$json")
    add "{\"part\": \"speed_run\", \"backend\": \"$b\", \"scale\": $SCALE, \"status\": \"$status\", \"exit\": $rc, \"result\": $result}"
  done
else
  echo "glm-ocr speed run skipped: python3 with numpy, or the random checkpoint, is missing (see glm-full-random.log)"
  add "{\"part\": \"speed_run\", \"status\": \"skipped: no random checkpoint (python3 + numpy)\"}"
fi

cat > "$OUT_DIR/glm-ocr.json" <<JSON
[$PARTS
]
JSON
exit 0
