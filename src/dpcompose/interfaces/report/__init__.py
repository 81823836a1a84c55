"""Reports: every composition method side by side, for a plan or a list of mechanisms.

- :mod:`.model` computes (:func:`build_report` for a plan, :func:`compare` for a list), with
  :mod:`.records` (the data model, JSON), :mod:`.rows` (one row per method and target) and
  :mod:`.constrained` (the parallel and hypothesis-DP rows);
- :mod:`.render` shows: the 80-column table (:func:`render_table`) and the review
  document (:func:`to_markdown`, :func:`to_html`);
- :mod:`.plot` draws epsilon against delta, delta against epsilon and epsilon against
  steps, and exports the curves (:func:`write_plot`, :func:`write_plot_data`);
- :mod:`dpcompose._display` formats numbers (upper bounds up, lower bounds down, noise toward more).

JSON: :func:`to_json`.
"""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

#: public name -> the module that defines it, imported on first access (PEP 562), so that
#: a one-line query loads only what it uses (no plots, no review document: issue 15)
_LAZY: dict[str, str] = {}
for _module, _names in {
    "dpcompose._display": ("fmt_decimal", "fmt_lower", "fmt_noise", "fmt_number", "fmt_target", "fmt_time",
                           "fmt_upper"),
    ".records": ("REPORT_ONLY_METHODS", "SCOPE_CLASSIC", "STATUS_ESTIMATE", "STATUS_EXACT", "STATUS_UPPER",
                 "Curve", "Headline", "Invocation", "Report", "Row", "Skipped", "jsonable", "to_dict", "to_json"),
    ".rows": ("composition_methods", "exact_decimal", "guarantee_caveats", "normalize_methods",
              "report_options", "sanity_warnings"),
    ".model": ("build_report", "compare", "from_guarantees"),
    ".plot": ("PLOT_KINDS", "PLOT_SIZE_PX", "PlotData", "Series", "check_data_path", "check_plot_path",
              "plot_data", "write_plot", "write_plot_data"),
    ".render": ("LEGEND", "headline_lines", "render_table", "to_html", "to_markdown", "upper_text"),
}.items():
    _LAZY.update(dict.fromkeys(_names, _module))
del _module, _names
_SUBMODULES = ("model", "records", "rows", "constrained", "plot", "render")

if _TYPE_CHECKING:  # what __getattr__ gives, for type checkers
    from ..._display import fmt_decimal, fmt_lower, fmt_noise, fmt_number, fmt_target, fmt_time, fmt_upper
    from .model import build_report, compare, from_guarantees
    from .plot import (PLOT_KINDS, PLOT_SIZE_PX, PlotData, Series, check_data_path, check_plot_path, plot_data,
                       write_plot, write_plot_data)
    from .records import (REPORT_ONLY_METHODS, SCOPE_CLASSIC, STATUS_ESTIMATE, STATUS_EXACT, STATUS_UPPER, Curve,
                          Headline, Invocation, Report, Row, Skipped, jsonable, to_dict, to_json)
    from .render import LEGEND, headline_lines, render_table, to_html, to_markdown, upper_text
    from .rows import (composition_methods, exact_decimal, guarantee_caveats, normalize_methods, report_options,
                       sanity_warnings)

    _jsonable = jsonable


def __getattr__(name: str) -> _Any:
    if name == "_jsonable":  # the old private name (report.py's), still imported by main's cli_fdp.py
        name_in_module, module = "jsonable", _LAZY["jsonable"]
    elif name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    else:
        name_in_module, module = name, _LAZY.get(name, "")
        if not module:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name_in_module)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"_jsonable"})


__all__ = [
    "Row", "Skipped", "Curve", "Invocation", "Headline", "Report",
    "STATUS_UPPER", "STATUS_EXACT", "STATUS_ESTIMATE", "SCOPE_CLASSIC", "REPORT_ONLY_METHODS",
    "composition_methods", "normalize_methods", "compare", "build_report", "from_guarantees",
    "report_options", "guarantee_caveats", "exact_decimal", "sanity_warnings", "jsonable",
    "render_table", "headline_lines", "upper_text", "LEGEND", "to_json", "to_dict", "to_markdown",
    "to_html",
    "PLOT_KINDS", "PLOT_SIZE_PX", "PlotData", "Series", "plot_data", "write_plot", "write_plot_data",
    "check_plot_path", "check_data_path",
    "fmt_upper", "fmt_lower", "fmt_noise", "fmt_decimal", "fmt_number", "fmt_target", "fmt_time",
]
