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
    gains = [(r["minutes"], r["image_gain"]) for r in recs if "image_gain" in r]
    panels = 3 if gains else 2
    fig, axes = plt.subplots(panels, 1, figsize=(8, 3 + 1.5 * panels), sharex=True,
                             gridspec_kw={"height_ratios": [3] + [1] * (panels - 1)})
    ax, ax_lr = axes[0], axes[-1]
    # An MTP head's run (train_mtp.py) logs one loss per chain depth.
    depths = sorted({k for r in recs for k in r if k.startswith("loss_depth")})
    for key, label in (("ar_loss", "AR (clean stream)"), ("diff_loss", "diffusion (masked slots)"),
                       ("glyph_loss", "glyph objective (nats/character)"),
                       ("look_loss", "look objective (nats/character)"),
                       *((k, f"MTP head, chain depth {k[len('loss_depth'):]}") for k in depths)):
        if any(r.get(key) for r in recs):
            ax.plot(minutes, [r.get(key) for r in recs], label=label)
    ax.set_yscale("log")
    ax.set_ylabel("cross-entropy (nats/token)")
    ax.legend()
    ax.grid(alpha=0.3)
    ax.set_title(f"{os.path.basename(os.path.normpath(run_dir))}: {recs[-1]['samples']} regions, "
                 f"{recs[-1]['step']} steps")
    if gains:
        axes[1].plot(*zip(*gains), ".", color="green")
        axes[1].set_ylabel("image gain\n(nats/token)")
        axes[1].grid(alpha=0.3)
    ax_lr.plot(minutes, [r["lr"] for r in recs], color="gray")
    ax_lr.set_ylabel("lr")
    ax_lr.set_xlabel("minutes inside the training loop (restarts excluded)")
    fig.tight_layout()
    fig.savefig(os.path.join(run_dir, "curves.png"), dpi=100)


if __name__ == "__main__":
    main()
