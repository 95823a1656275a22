"""Plot a run's loss curves from training/runs/<name>/log.jsonl into curves.png beside it.

    /usr/bin/python3 plot_curves.py runs/tiny-v1
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    run_dir = sys.argv[1]
    recs = [json.loads(l) for l in open(os.path.join(run_dir, "log.jsonl")) if l.strip()]
    minutes = [r["minutes"] for r in recs]
    fig, (ax, ax_lr) = plt.subplots(2, 1, figsize=(8, 6), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    for key, label in (("loss", "total (0.5 AR + 0.5 diffusion)"), ("ar_loss", "AR (clean stream)"),
                       ("diff_loss", "diffusion (masked slots)")):
        ax.plot(minutes, [r[key] for r in recs], label=label)
    ax.set_yscale("log")
    ax.set_ylabel("cross-entropy (nats/token)")
    ax.legend()
    ax.grid(alpha=0.3)
    ax.set_title(f"{os.path.basename(os.path.normpath(run_dir))}: {recs[-1]['samples']} regions, "
                 f"{recs[-1]['step']} steps")
    ax_lr.plot(minutes, [r["lr"] for r in recs], color="gray")
    ax_lr.set_ylabel("lr")
    ax_lr.set_xlabel("minutes inside the training loop (restarts excluded)")
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "curves.png"), dpi=100)


if __name__ == "__main__":
    main()
