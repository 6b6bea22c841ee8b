"""What the report's figures share: matplotlib (Agg backend) with one style, the variants'
colours, axis helpers, and save_figure, which writes a figure as PNG and SVG carrying the
run's commit, date, host and kernel in its metadata. Each table module draws its own figure
with these (its `figure`); plots.py calls them."""

import os

import matplotlib

from context import VARIANTS

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "filterlab", "font.size": 9,
                     "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 100})

COLORS = {"classic": "#d62728", "block512": "#1f77b4", "split256": "#2ca02c", "reg64": "#9467bd",
          "cuckoo": "#ff7f0e"}
# tables 9 and 12 (counting and scalable Bloom filters): their own variants' colours
SKETCH_COLORS = {"counting": "#d62728", "counting512": "#1f77b4", "classic": "#9467bd", "block512": "#2ca02c"}


def save_figure(fig, out, name, title, stamp):
    d = os.path.join(out, "plots")
    os.makedirs(d, exist_ok=True)
    desc = "scripts/reproduce %s: commit %s, %s, host %s, kernel %s" % (
        stamp["mode"], stamp["commit"], stamp["date"], stamp["host_id"], stamp["kernel_selected"])
    fig.text(0.995, 0.005, "%s  %s  %s" % (stamp["host_id"], (stamp["commit"] or "")[:10], stamp["date"][:10]),
             ha="right", va="bottom", fontsize=6, color="0.5")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(os.path.join(d, name + ".png"), metadata={"Title": title, "Description": desc})
    fig.savefig(os.path.join(d, name + ".svg"), metadata={"Title": title, "Description": desc, "Date": None})
    plt.close(fig)
    return ["plots/%s.png" % name, "plots/%s.svg" % name]


def variant_lines(ax, points):
    """One marked line per variant that has points; points(variant) -> [(x, y)]."""
    for v in VARIANTS:
        pts = points(v)
        if pts:
            ax.plot([a for a, _ in pts], [b for _, b in pts], "o-", color=COLORS[v], label=v, ms=3)


def axis_labels(ax, xlabel, ylabel, title, legend=None, log=""):
    """The axes' labels and title, the legend in that font size if legend, and a log scale on
    the axes log names ("x", "y", "xy")."""
    for axis in log:
        getattr(ax, "set_%sscale" % axis)("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    if legend:
        ax.legend(fontsize=legend)


def cache_lines(ax, caches):
    for key, label in (("l1d", "L1d"), ("l2", "L2"), ("llc", "LLC")):
        if caches.get(key):
            ax.axvline(caches[key], color="0.6", ls=":", lw=1)
            ax.text(caches[key], ax.get_ylim()[1], " " + label, fontsize=7, color="0.4", va="top")
