# SPDX-License-Identifier: BSD-3-Clause
"""PNG plots with Debian's matplotlib (no display needed)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def panels(path, title, series, xlabel="time (s)", log=False):
    """series: [(ylabel, {label: ([x], [y])})], one panel each, stacked; log: logarithmic
    y axes (values that span decades, like latency percentiles)."""
    fig, axes = plt.subplots(len(series), 1, figsize=(8, 3.2 * len(series)), sharex=True,
                             squeeze=False)
    for ax, (ylabel, lines) in zip(axes[:, 0], series):
        for label, (x, y) in lines.items():
            ax.plot(x, y, label=label, marker="." if len(x) < 30 else None)
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="best")
    axes[-1, 0].set_xlabel(xlabel)
    axes[0, 0].set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
