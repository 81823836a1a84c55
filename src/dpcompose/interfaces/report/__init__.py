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

from ..._display import fmt_decimal, fmt_lower, fmt_noise, fmt_number, fmt_target, fmt_time, fmt_upper
from .model import (
    REPORT_ONLY_METHODS,
    SCOPE_CLASSIC,
    STATUS_ESTIMATE,
    STATUS_EXACT,
    STATUS_UPPER,
    Curve,
    Headline,
    Invocation,
    Report,
    Row,
    Skipped,
    build_report,
    compare,
    composition_methods,
    exact_decimal,
    from_guarantees,
    guarantee_caveats,
    jsonable,
    normalize_methods,
    report_options,
    sanity_warnings,
    to_dict,
    to_json,
)
from .plot import (
    PLOT_KINDS,
    PLOT_SIZE_PX,
    PlotData,
    Series,
    check_data_path,
    check_plot_path,
    plot_data,
    write_plot,
    write_plot_data,
)
from .render import LEGEND, headline_lines, render_table, to_html, to_markdown, upper_text

#: the old private name (report.py's), still imported by main's cli_fdp.py; use :func:`jsonable`
_jsonable = jsonable

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
