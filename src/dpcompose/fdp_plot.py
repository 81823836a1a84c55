"""Plots of a certified trade-off band (ROC view), for the CLI and for reports.

:func:`write_tradeoff_plot` writes ``.png``, ``.svg`` or ``.html`` (the SVG in a page);
:func:`tradeoff_figure` returns the matplotlib figure for a report to embed. Two panels:
the attack's TPR against its FPR on linear axes, and on log-log axes (the low-FPR regime
where membership attacks are judged). The shaded band lies between the certified
largest TPR of any attack (``1 - lower``) and the TPR some attack attains
(``1 - upper``); dashed lines are the Gaussian-DP curves at the ends of the certified
mu bracket, when one is given.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InvalidParameterError
from .fdp import GDPBracket, TradeoffCurve

__all__ = ["tradeoff_figure", "write_tradeoff_plot", "PLOT_FPRS"]

#: the false-positive rates at which a plotted curve is evaluated
PLOT_FPRS = np.unique(np.concatenate((np.logspace(-8, 0, 81), np.linspace(0.0, 1.0, 101))))


def tradeoff_figure(curve: TradeoffCurve, title: str = "", mu: GDPBracket | None = None) -> Any:
    """A matplotlib figure of the band (the curve is refined at :data:`PLOT_FPRS` first)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from scipy.stats import norm

    a = PLOT_FPRS
    tpr_lo, tpr_up = curve.max_tpr(a)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    for ax, log in zip(axes, (False, True)):
        ax.fill_between(a, tpr_lo, tpr_up, color="tab:red", alpha=0.25, lw=0,
                        label="certified band of the best attack")
        ax.plot(a, tpr_up, color="tab:red", lw=1.5, label="no attack is above (certified)")
        if curve.has_lower:
            ax.plot(a, tpr_lo, color="tab:blue", lw=1.0, label="some attack reaches (certified)")
        if mu is not None:
            for m, style in ((mu.lower, ":"), (mu.upper, "--")):
                if np.isfinite(m) and m > 0:
                    ax.plot(a, norm.cdf(norm.ppf(np.clip(a, 1e-300, 1.0)) + m), "k" + style, lw=0.8,
                            label=f"Gaussian DP, mu = {m:.4g}")
        ax.plot(a, a, color="grey", lw=0.6, label="random guess")
        ax.set_xlabel("false-positive rate (type I error)")
        ax.set_ylabel("true-positive rate (1 - type II error)")
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(1e-8, 1.0)
            ax.set_ylim(max(1e-8, float(np.min(tpr_lo[tpr_lo > 0])) if np.any(tpr_lo > 0) else 1e-8), 1.0)
        else:
            ax.set_xlim(0.0, 1.0)
            ax.set_ylim(0.0, 1.0)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def write_tradeoff_plot(curve: TradeoffCurve, path: str | Path, title: str = "",
                        mu: GDPBracket | None = None) -> Path:
    """Write the band as .png, .svg or .html (SVG embedded).

    Raises:
        InvalidParameterError: for another file extension.
    """
    import html

    import matplotlib.pyplot as plt

    p = Path(path)
    ext = p.suffix.lower()
    if ext not in (".png", ".svg", ".html", ".htm"):
        raise InvalidParameterError(
            f"--plot {str(path)!r}: unsupported file type {ext or '(none)'!r}; use .png, .svg or .html.")
    fig = tradeoff_figure(curve, title, mu)
    try:
        if ext in (".png", ".svg"):
            fig.savefig(p, format=ext[1:], dpi=120)
        else:
            buf = io.StringIO()
            fig.savefig(buf, format="svg")
            svg = buf.getvalue()
            svg = svg[svg.find("<svg"):]
            p.write_text(f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
                         f"{html.escape(title or 'trade-off band')}</title></head><body>\n"
                         f"<h1>{html.escape(title or 'trade-off band')}</h1>\n{svg}\n</body></html>\n",
                         encoding="utf-8")
    finally:
        plt.close(fig)
    return p
