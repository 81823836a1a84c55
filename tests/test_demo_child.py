"""The demo's plot child (issue 14, the demo under 1.5 s): it draws the hospitals figure
without pyplot and with matplotlib's setter docstring tables left empty, and exits at once;
the file is the one ``write_plot`` draws in-process, byte for byte."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def hospitals():
    from dpcompose.interfaces import report as R
    from dpcompose.interfaces.plan import bundled_plan
    from dpcompose.interfaces.report.plot import plot_data

    rep = R.build_report(bundled_plan("hospitals"))
    return rep, plot_data(rep)


def test_figure_without_pyplot_is_the_pyplot_figure(hospitals):
    import matplotlib.pyplot as plt

    from dpcompose.interfaces.report.plot import PLOT_DPI, figure_of

    rep, data = hospitals
    files = []
    for pyplot in (True, False):
        fig = figure_of(data, rep.caveats, pyplot=pyplot)
        png, svg = io.BytesIO(), io.StringIO()
        fig.savefig(png, format="png", dpi=PLOT_DPI)
        fig.savefig(svg, format="svg")
        plt.close(fig)
        files.append((png.getvalue(), svg.getvalue().count("<path")))
    assert files[0] == files[1]


def test_child_draws_the_demo_plot_byte_for_byte(hospitals, tmp_path):
    from dpcompose.interfaces import report as R
    from dpcompose.interfaces.report.plot_worker import PlotWorker

    rep, data = hospitals
    here = R.write_plot(rep, tmp_path / "here.png", data=data)
    with PlotWorker(child=True) as worker:
        worker.submit(rep, tmp_path / "there.png")
        there = worker.result()
        assert worker.drawn_by_child
    assert there.read_bytes() == here.read_bytes()


def test_child_imports_no_pyplot_and_exits_zero(tmp_path):
    """The child's imports (what it loads while the parent computes): matplotlib's figure and
    Agg backend, not pyplot; an empty job ends it with status 0."""
    code = ("import sys\nfrom dpcompose.interfaces.report import plot_worker as W\nW._child()\n"
            "print('pyplot' if 'matplotlib.pyplot' in sys.modules else 'no pyplot')\n"
            "import matplotlib.artist\nprint(repr(matplotlib.artist.kwdoc(matplotlib.artist.Artist)))")
    out = subprocess.run([sys.executable, "-c", code], input=b"", capture_output=True, check=True, cwd=tmp_path)
    assert out.stdout.decode().split() == ["no", "pyplot", "''"]


def test_demo_parent_loads_no_matplotlib_when_the_child_draws(tmp_path):
    """The parent computes and prints; matplotlib (about 0.5 s to import) is the child's."""
    code = ("import sys\nfrom dpcompose.interfaces.report import plot_worker as W\n"
            "W.core_is_free = lambda: True\nfrom dpcompose.interfaces import cli_fast\n"
            f"assert cli_fast.run(['demo', '-q', '--plot', {str(tmp_path / 'p.png')!r}])\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'PIL', 'scipy'}))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                         cwd=tmp_path).stdout
    assert out.splitlines()[-1] == "[]"
    assert (tmp_path / "p.png").stat().st_size > 10_000
