r"""Plan files: a release described once, in TOML, validated before anything runs.

A plan lists databases, the mechanisms invoked on them, optional membership
constraints and adversary hypotheses (hypothesis DP, Hartmann, Bindschaedler and
West, "On the Choice of Databases in Differential Privacy Composition"), the targets to
report, and the methods to compare. ``docs/plans.md`` documents every key; ``dpcompose
schema`` prints the JSON Schema. A minimal plan::

    title = "100 x 0.1-DP"
    [[invocations]]
    mechanism = "pure(epsilon=0.1)"
    count = 100
    [targets]
    deltas = [1e-6]

Validation is strict: unknown keys are errors, every number is range-checked and
type-checked (pydantic strict mode: an integer is accepted where a real number is
expected, but never a boolean or a string, so ``count = "100"`` and ``scale = true``
are errors), a number whose decimal text under- or overflows a double (``1e-400``) is
refused, method options are checked by the method's own check at load time, and a
:class:`PlanError` names the file, the field path (``invocations[3].mechanism.scale``),
the bad value and the remedy, for every problem found in one pass.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Union, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictInt,
    Tag,
    ValidationError,
    create_model,
    model_validator,
)

from .._validation import lost_in_conversion
from ..errors import InvalidParameterError
from .expressions import MECHANISM_SYNTAX, ExpressionError, Term, format_term, parse, to_mechanisms
from .expressions import bind as _bind
from ..mechanisms import Mechanism
from ..representations import MechanismSyntax, all_syntax

__all__ = [
    "PlanError",
    "PlanSpec",
    "Plan",
    "load_plan",
    "parse_plan",
    "plan_json_schema",
    "bundled_plan",
    "bundled_plans",
    "plan_variables",
    "plan_with",
    "read_plan_data",
]

#: methods computed by the report itself rather than registered with compose
REPORT_ONLY_METHODS = ("parallel", "hdp")

# strict: no coercion of strings or booleans to numbers (an int is still a valid float)
_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True, strict=True)

#: values an ``[options.METHOD]`` key may hold; the method's own check decides the rest
OptionValue = Union[float, int, str, bool, list[Union[float, int]]]

Finite = Annotated[float, Field(allow_inf_nan=False)]


class PlanError(InvalidParameterError):
    """A plan file is missing, unreadable, not TOML, or invalid.

    Attributes:
        source: the file name (or ``"<string>"``).
        problems: ``(path, message)`` pairs, one per problem found.
    """

    def __init__(self, source: str, problems: list[tuple[str, str]], headline: str | None = None) -> None:
        self.source = source
        self.problems = problems
        n = len(problems)
        head = headline or f"plan file {source!r} is invalid ({n} problem{'s' if n != 1 else ''})"
        lines = [head + ":"] + [f"  {p}{' ' if m.startswith('= ') else ': '}{m}" if p else f"  {m}"
                                for p, m in problems]
        super().__init__("\n".join(lines))


# ---------------------------------------------------------------------------
# the schema (pydantic models)


class SamplingSpec(BaseModel):
    """Subsampling applied before the mechanism runs."""

    model_config = _STRICT
    rate: float = Field(gt=0, le=1, allow_inf_nan=False,
                        description="sampling rate q in (0, 1]")
    scheme: Literal["poisson", "without_replacement", "poisson_substitution"] = Field(
        "poisson", description="poisson (add/remove neighbours), without_replacement or poisson_substitution "
                               "(substitution)")


class _MechBase(BaseModel):
    model_config = _STRICT
    sampling: SamplingSpec | None = Field(None, description="optional subsampling")


def _spec_model(syn: MechanismSyntax) -> type[_MechBase]:
    """The plan table model of one mechanism, from its registered syntax (``type = "name"``)."""
    fields: dict[str, Any] = {"type": (Literal[syn.name], ...)}  # type: ignore[valid-type]
    for p in syn.parameters:
        bounds: dict[str, Any] = {k: v for k, v in (("gt", p.gt), ("ge", p.ge), ("lt", p.lt)) if v is not None}
        default = ... if p.default is None else p.default
        fields[p.name] = (float, Field(default, allow_inf_nan=False, description=p.description, **bounds))
    return create_model(syn.spec_name, __base__=_MechBase, __doc__=syn.summary, __module__=__name__,
                        **fields)


#: the plan table model of each registered mechanism, by its ``type``
#: (:func:`dpcompose.representations.all_syntax`: a new family needs no edit here)
_SPECS: dict[str, type[_MechBase]] = {syn.name: _spec_model(syn) for syn in all_syntax()}
_TABLE_TAGS = tuple(_SPECS)


def _mech_tag(v: Any) -> str | None:
    if isinstance(v, str):
        return "expression"
    if isinstance(v, dict):
        t = v.get("type")
        return t if t in _TABLE_TAGS else None
    if isinstance(v, BaseModel):
        return getattr(v, "type", None)
    return None


MechanismSpec = Annotated[  # type: ignore[valid-type]  # built from the registered syntax
    Union[tuple([Annotated[str, Tag("expression")]]  # type: ignore[misc]
                + [Annotated[model, Tag(tag)] for tag, model in _SPECS.items()])],
    Discriminator(
        _mech_tag,
        custom_error_type="mechanism_kind",
        custom_error_message=(
            "a mechanism is an expression string such as \"laplace(scale=20)\" or a table with "
            "type = one of " + ", ".join(_TABLE_TAGS)
        ),
    ),
]


class DatabaseSpec(BaseModel):
    """A group of ``count`` separate databases of one kind (e.g. 1000 hospitals)."""

    model_config = _STRICT
    name: str = Field(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_\-]*$",
                      description="identifier the invocations refer to")
    count: int = Field(1, ge=1, le=10**7, description="how many databases of this kind")
    description: str = ""


class InvocationSpec(BaseModel):
    """A mechanism run ``count`` times on each database of a group."""

    model_config = _STRICT
    mechanism: MechanismSpec = Field(description="expression string or mechanism table")  # type: ignore[valid-type]
    database: str | None = Field(None, description="name of a [[databases]] entry; "
                                 "omitted: every run is on its own database (classic composition)")
    count: int = Field(1, ge=1, le=10**12, description="runs per database")
    label: str = ""


class MembershipSpec(BaseModel):
    """Which databases one individual can be in (hypothesis DP)."""

    model_config = _STRICT
    max_databases: int | None = Field(None, ge=1, description="an individual is in at most this many databases")
    max_per_group: dict[str, Annotated[int, Field(ge=0)]] | None = Field(
        None, description="caps per [[databases]] group: at most this many databases of the group")
    patterns: list[list[Literal[0, 1]]] | None = Field(
        None, min_length=1, description="explicit allowed membership vectors, one bit per database")
    neighbors: Literal["unbounded", "bounded"] = Field(
        "unbounded", description="unbounded: compare against absence; bounded: any two allowed patterns")

    @model_validator(mode="after")
    def _one_kind(self) -> "MembershipSpec":
        caps = self.max_databases is not None or self.max_per_group is not None
        if caps == (self.patterns is not None):
            raise ValueError("give max_databases and/or max_per_group, or patterns (not both kinds)")
        return self


class TableEntry(BaseModel):
    model_config = _STRICT
    b: list[Literal[0, 1]]
    p: float = Field(ge=0, le=1, allow_inf_nan=False)


class HypothesisSpec(BaseModel):
    """A distribution over membership vectors; give exactly one key."""

    model_config = _STRICT
    point: list[Literal[0, 1]] | None = None
    uniform: list[list[Literal[0, 1]]] | None = Field(None, min_length=1)
    uniform_nonzero: bool | None = None
    product: list[Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]] | None = None
    table: list[TableEntry] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_kind(self) -> "HypothesisSpec":
        given = [k for k in ("point", "uniform", "uniform_nonzero", "product", "table")
                 if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of point, uniform, uniform_nonzero, product, table")
        return self


class HypothesesSpec(BaseModel):
    """The adversary's two hypotheses about the target's membership vector."""

    model_config = _STRICT
    p0: HypothesisSpec
    p1: HypothesisSpec


class HdpOptionsSpec(BaseModel):
    """``[options.hdp]``: options of the hypothesis-DP rows (``dpcompose.hypotheses.hdp``)."""

    model_config = _STRICT
    enumeration_limit: StrictInt | None = Field(
        None, ge=1, le=10**6, description="how many candidate database subsets hdp composes for the exact "
        "worst case before it falls back to a dominating upper bound (default 64)")
    coupling: Literal["auto", "exact", "optimal", "alg3", "paper", "subsampled"] | None = Field(
        None, description="coupling for explicit [hypotheses] (default auto)")


def _hdp_option_problems(values: dict[str, Any]) -> list[tuple[str, str]]:
    """Problems with an ``[options.hdp]`` table (validated here: it is not a compose method)."""
    known = list(HdpOptionsSpec.model_fields)
    problems = [(f"options.hdp.{k}", f"unknown key {k!r}; remove it or fix its spelling (allowed keys "
                 f"here: {', '.join(known)})") for k in values if k not in known]
    try:
        HdpOptionsSpec.model_validate({k: v for k, v in values.items() if k in known})
    except ValidationError as exc:
        problems += [(f"options.hdp.{p}", m) for p, m in _problems_from_validation(exc)]
    return problems


class TargetsSpec(BaseModel):
    """What to report: epsilon at each delta, delta at each epsilon."""

    model_config = _STRICT
    deltas: list[Annotated[float, Field(gt=0, lt=1, allow_inf_nan=False)]] = Field(
        default_factory=lambda: [1e-6], description="report epsilon(delta) for each; 0 < delta < 1")
    epsilons: list[Annotated[float, Field(ge=0, allow_inf_nan=False)]] = Field(
        default_factory=list, description="report delta(epsilon) for each; epsilon >= 0")

    @model_validator(mode="after")
    def _some(self) -> "TargetsSpec":
        if not self.deltas and not self.epsilons:
            raise ValueError("give at least one delta or epsilon")
        return self


class PlotSpec(BaseModel):
    """The delta range of ``--plot``."""

    model_config = _STRICT
    delta_min: float = Field(default=1e-10, gt=0, lt=1, allow_inf_nan=False)
    delta_max: float = Field(default=1e-2, gt=0, lt=1, allow_inf_nan=False)
    points: int = Field(default=25, ge=2, le=400)

    @model_validator(mode="after")
    def _order(self) -> "PlotSpec":
        if self.delta_min >= self.delta_max:
            raise ValueError("delta_min must be below delta_max")
        return self


class PlanSpec(BaseModel):
    """A dpcompose plan: what runs, on which databases, and what to report."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True,
                              strict=True, title="dpcompose plan")
    title: str = "untitled plan"
    description: str = ""
    databases: list[DatabaseSpec] = Field(default_factory=list)
    invocations: list[InvocationSpec] = Field(min_length=1)
    membership: MembershipSpec | None = None
    hypotheses: HypothesesSpec | None = None
    targets: TargetsSpec = Field(default_factory=TargetsSpec)
    methods: list[str] | None = Field(
        None, min_length=1, description="methods to compare (default: every registered method)")
    options: dict[str, dict[str, OptionValue]] = Field(
        default_factory=dict, description="per-method options, e.g. {pld = {tolerance = 1e-3}}")
    plot: PlotSpec = Field(default_factory=PlotSpec)
    parameters: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")], Finite] = Field(
        default_factory=dict,
        description="values of the free parameters that mechanism expressions use, e.g. "
                    "{s = 1.1} for \"gaussian(sigma=s)\"; `dpcompose calibrate PLAN --parameter s` "
                    "solves for one")


# ---------------------------------------------------------------------------
# the loaded plan


@dataclass
class Plan:
    """A validated plan with its mechanisms built.

    Attributes:
        spec: the validated :class:`PlanSpec`.
        source: the file name (or ``"<string>"``).
        mechanisms: ``(mechanism, count)`` for every invocation on every database, in
            order; ``databases[i]`` is the database index of ``mechanisms[i]``.
        database_names: one name per database (``hospital[17]``).
    """

    spec: PlanSpec
    source: str
    mechanisms: list[tuple[Mechanism, int]]
    databases: list[int]
    database_names: list[str]
    expressions: list[str] = field(default_factory=list)
    groups: dict[str, list[int]] = field(default_factory=dict)

    @property
    def membership(self) -> Any:
        """The ``[membership]`` constraint as a :class:`~dpcompose.hypotheses.Membership`
        (``Allowed``, ``AtMost``, ``PerGroup``, joined with ``AllOf``), or None without one."""
        mem = self.spec.membership
        if mem is None:
            return None
        from ..hypotheses import AllOf, Allowed, AtMost, PerGroup

        if mem.patterns is not None:
            return Allowed([tuple(p) for p in mem.patterns])
        parts: list[Any] = []
        if mem.max_databases is not None:
            parts.append(AtMost(mem.max_databases))
        if mem.max_per_group:
            names = list(mem.max_per_group)
            parts.append(PerGroup([self.groups[n] for n in names], [mem.max_per_group[n] for n in names]))
        return parts[0] if len(parts) == 1 else AllOf(*parts)

    @property
    def neighbors(self) -> str:
        """The neighbour relation of ``[membership]`` (``"unbounded"`` without one)."""
        mem = self.spec.membership
        return "unbounded" if mem is None else mem.neighbors

    @property
    def hypotheses(self) -> tuple[Any, Any] | None:
        """The ``[hypotheses]`` p0 and p1 as :class:`~dpcompose.hypotheses.Hypothesis`
        objects over the plan's databases, or None without them."""
        if self.spec.hypotheses is None:
            return None
        n = len(self.database_names)
        return (_hypothesis(self.spec.hypotheses.p0, n), _hypothesis(self.spec.hypotheses.p1, n))

    @property
    def sha256(self) -> str:
        """The plan's hash: SHA-256 of its validated content as canonical JSON (sorted keys,
        defaults filled in), so two files that say the same thing hash the same."""
        import hashlib
        import json

        text = json.dumps(self.spec.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def max_members(self) -> int:
        """The most databases one person can be in under ``[membership]`` (all if none)."""
        n = len(self.database_names)
        return n if self.membership is None else self.membership.max_members(n)

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def total_invocations(self) -> int:
        return sum(k for _, k in self.mechanisms)

    @property
    def has_hypothesis_dp(self) -> bool:
        return self.spec.membership is not None or self.spec.hypotheses is not None

    def composition(self) -> list[tuple[Mechanism, int]]:
        """Input for :func:`dpcompose.compose`: every invocation (classic composition)."""
        return list(self.mechanisms)


def _hypothesis(spec: "HypothesisSpec", n: int) -> Any:
    """One ``[hypotheses]`` entry as a Hypothesis (the spec's validator allows one kind)."""
    from ..hypotheses import Hypothesis

    if spec.point is not None:
        return Hypothesis.point(tuple(spec.point))
    if spec.uniform is not None:
        return Hypothesis.uniform([tuple(v) for v in spec.uniform])
    if spec.uniform_nonzero:
        return Hypothesis.uniform_nonzero(n)
    if spec.product is not None:
        return Hypothesis.product(list(spec.product))
    if spec.table is not None:
        return Hypothesis.table({tuple(t.b): t.p for t in spec.table})
    raise InvalidParameterError("hypothesis: uniform_nonzero = false is not a hypothesis; "
                                "give point, uniform, uniform_nonzero = true, product or table")


_REMEDIES = {
    # each mechanism parameter's remedy, from the registered syntax (the first family wins)
    **{p.name: p.remedy for syn in reversed(all_syntax()) for p in syn.parameters},
    "deltas": "each delta is a probability strictly between 0 and 1, e.g. deltas = [1e-6]",
    "epsilons": "each epsilon is a finite number >= 0, e.g. epsilons = [1.0]",
    "rate": "the sampling rate is a probability in (0, 1], e.g. rate = 0.004",
    "count": "a whole number >= 1, e.g. count = 100",
    "max_databases": "a whole number >= 1, e.g. max_databases = 365",
    "enumeration_limit": "a whole number >= 1, e.g. enumeration_limit = 1000",
    "coupling": "one of auto, exact, optimal, alg3, paper, subsampled",
    "invocations": "add at least one [[invocations]] table, e.g. mechanism = \"laplace(scale=20)\"",
    "mechanism": "write an expression such as \"laplace(scale=20)\" or a table "
                 "{ type = \"laplace\", scale = 20 } (see docs/plans.md)",
    "neighbors": "use \"unbounded\" (add/remove one person) or \"bounded\" (replace one person)",
    "scheme": "use \"poisson\", \"without_replacement\" or \"poisson_substitution\"",
}


def _path_key(problem: tuple[str, str]) -> tuple[Any, ...]:
    """Problems in the plan's order: top-level keys as PlanSpec declares them, then indices."""
    import re

    order = list(PlanSpec.model_fields)
    parts = re.findall(r"[^.\[\]]+", problem[0])
    head = order.index(parts[0]) if parts and parts[0] in order else len(order)
    return (head, *[(0, int(x), "") if x.isdigit() else (1, 0, x) for x in parts[1:]])


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    tags = set(_TABLE_TAGS) | {"expression"}
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in tags and i > 0 and loc[i - 1] == "mechanism":
            continue
        elif part.startswith("function-") or part in ("list[...]",):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model at ``loc`` (for 'unknown key' messages)."""
    model: Any = PlanSpec
    tag_models = _SPECS
    for part in loc:
        if isinstance(part, int):
            continue
        if part in tag_models:
            model = tag_models[part]
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        f = model.model_fields.get(part)
        if f is None:
            return []
        model = _innermost_model(f.annotation)
        if model is None and part == "mechanism":
            model = "mechanism"
    if isinstance(model, type) and issubclass(model, BaseModel):
        return list(model.model_fields)
    return []


def _innermost_model(ann: Any) -> Any:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for a in get_args(ann):
        m = _innermost_model(a)
        if m is not None:
            return m
    return None


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool):  # TOML spelling, and say what it is
        return f"{str(v).lower()} (a boolean)"
    if isinstance(v, str):
        return f"{v!r} (a string)" if len(v) <= 40 else f"{v[:37]!r}... (a string)"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return "a table"
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _problems_from_validation(err: ValidationError) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for e in err.errors(include_url=False):
        loc = tuple(e.get("loc", ()))
        etype = e.get("type", "")
        if etype == "extra_forbidden":
            key = loc[-1] if loc else "?"
            allowed = _allowed_keys(loc[:-1])
            hint = f"allowed keys here: {', '.join(allowed)}" if allowed else "see docs/plans.md"
            problems.append((_path(loc), f"unknown key {key!r}; remove it or fix its spelling ({hint})"))
            continue
        path = _path(loc)
        last = next((p for p in reversed(loc) if isinstance(p, str) and p not in _TABLE_TAGS), "")
        msg = e.get("msg", "invalid")
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        if etype == "missing":
            text = "is required but missing"
        else:
            text = f"= {_fmt_value(e.get('input'))} is invalid: {msg}"
        remedy = _REMEDIES.get(str(last))
        problems.append((path, text + (f". Remedy: {remedy}" if remedy else "")))
    # the same path can be reported twice by union branches; keep the first
    seen: set[tuple[str, str]] = set()
    out = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def _option_problems(method: str, options: dict[str, Any]) -> list[tuple[str, str]]:
    """Check ``[options.METHOD]`` with the method's own option check, one key at a time
    (so every bad key is named), then all together (for checks across keys)."""
    from ..compose import check_options

    problems = []
    for key, value in options.items():
        try:
            check_options(method, {key: value})
        except InvalidParameterError as exc:
            problems.append((f"options.{method}.{key}", f"= {_fmt_value(value)} is invalid: {exc}"))
    if not problems:
        try:
            check_options(method, options)
        except InvalidParameterError as exc:
            problems.append((f"options.{method}", f"is invalid: {exc}"))
    return problems


def _lost_numbers(data: Any, path: str = "") -> list[tuple[str, str]]:
    """Paths of numbers whose TOML text under- or overflowed (see :func:`_parse_float`)."""
    if isinstance(data, _LostFloat):
        return [(path, f"= {data.problem[0]}. Remedy: {data.problem[1]}")]
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _lost_numbers(v, f"{path}.{k}" if path else str(k))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _lost_numbers(v, f"{path}[{i}]")]
    return []


class _LostFloat(float):
    """A TOML float whose text did not survive conversion (``1e-400`` read as 0.0)."""

    problem: tuple[str, str]


def _parse_float(text: str) -> float:
    value = float(text)
    problem = lost_in_conversion(text, value)
    if problem is None:
        return value
    lost = _LostFloat(value)
    lost.problem = problem
    return lost


def _term_from_table(spec: Any) -> Term:
    params = {k: getattr(spec, k) for k in MECHANISM_SYNTAX[spec.type].params}
    sampling = (spec.sampling.scheme, spec.sampling.rate) if spec.sampling is not None else None
    return Term(spec.type, tuple((k, float(v)) for k, v in params.items()), 1, sampling)


def plan_variables(spec: PlanSpec) -> tuple[frozenset[str], frozenset[str]]:
    """``(all, in_counts)``: the free parameters the plan's expressions use (and those in counts)."""
    from .expressions import count_variables, variables

    every: frozenset[str] = frozenset()
    counts: frozenset[str] = frozenset()
    for inv in spec.invocations:
        if isinstance(inv.mechanism, str):
            try:
                terms = parse(inv.mechanism)
            except ExpressionError:
                continue
            every |= variables(terms)
            counts |= count_variables(terms)
    return every, counts


def plan_with(plan: "Plan", values: dict[str, float]) -> "Plan":
    """The plan rebuilt with some free parameters set (or changed), e.g. by calibration."""
    return _build(plan.spec, plan.source, values)


def _build(spec: PlanSpec, source: str, values: dict[str, float] | None = None, *,
           prior: list[tuple[str, str]] | None = None,
           ignore: Callable[[str, str], bool] | None = None) -> Plan:
    """Check what the schema cannot (names, sizes, expressions) and build the mechanisms.

    ``prior``: problems already found by the schema (reported first, in the same error);
    ``ignore``: drops problems that only follow from those (a part the schema refused).
    """
    problems: list[tuple[str, str]] = []
    env = {**spec.parameters, **(values or {})}
    used: set[str] = set()
    # databases
    groups: dict[str, tuple[int, int]] = {}  # name -> (first index, count)
    names: list[str] = []
    for i, db in enumerate(spec.databases):
        if db.name in groups:
            problems.append((f"databases[{i}].name", f"= {db.name!r} is used twice. Remedy: give each "
                                                     f"[[databases]] entry its own name"))
            continue
        groups[db.name] = (len(names), db.count)
        names.extend([db.name] if db.count == 1 else [f"{db.name}[{j}]" for j in range(db.count)])
    mechanisms: list[tuple[Mechanism, int]] = []
    databases: list[int] = []
    expressions: list[str] = []
    for i, inv in enumerate(spec.invocations):
        base = f"invocations[{i}].mechanism"
        try:
            if isinstance(inv.mechanism, str):
                terms = parse(inv.mechanism)
                for t in terms:
                    used.update(t.variables)
                free = sorted(set().union(*(t.variables for t in terms)) - set(env))
                if free:
                    problems.append((base, f"uses the free parameter(s) {', '.join(free)}, which "
                                     f"[parameters] does not give. Remedy: add [parameters] {free[0]} = "
                                     f"VALUE, or solve for it: dpcompose calibrate PLAN --parameter {free[0]}"))
                    continue
                terms = _bind(terms, env)
            else:
                terms = (_term_from_table(inv.mechanism),)
            built = to_mechanisms(terms)
            zero = [format_term(t) for t in terms if t.count == 0]
            if zero:
                problems.append((base, f"= {inv.mechanism!r} runs {zero[0]} zero times, so it adds nothing. "
                                 f"Remedy: remove the term, or give a count >= 1"))
        except ExpressionError as exc:
            path = base + (f".{exc.field}" if exc.field and exc.position is None else "")
            remedy = _REMEDIES.get(exc.field or "mechanism", _REMEDIES["mechanism"])
            what = f"= {inv.mechanism!r} is invalid: " if isinstance(inv.mechanism, str) else "is invalid: "
            msg = f"{what}{exc.short.rstrip('.')}. Remedy: {remedy}"
            if exc.position is not None:
                msg += f"\n      {exc.text}\n      {' ' * exc.position}^"
            problems.append((path, msg))
            continue
        expressions.append(" + ".join(format_term(t) for t in terms))
        if inv.database is None:
            if spec.membership is not None or spec.hypotheses is not None:
                problems.append((f"invocations[{i}].database", "is required when [membership] or "
                                 "[hypotheses] is given. Remedy: name one of the [[databases]] entries"))
                continue
            idx = len(names)
            names.append(f"invocation[{i}]")
            for m, k in built:
                mechanisms.append((m, k * inv.count))
                databases.append(idx)
            continue
        if inv.database not in groups:
            known = ", ".join(groups) or "none defined"
            problems.append((f"invocations[{i}].database", f"= {inv.database!r} is not a declared "
                             f"database (known: {known}). Remedy: add a [[databases]] entry with this name"))
            continue
        first, n = groups[inv.database]
        for j in range(n):
            for m, k in built:
                mechanisms.append((m, k * inv.count))
                databases.append(first + j)
    for name in spec.parameters:
        if name not in used:
            problems.append((f"parameters.{name}", "is not used by any mechanism expression. Remedy: "
                             "remove it or fix its spelling"))
    if spec.methods is not None:
        from .._validation import did_you_mean
        from ..compose import available_methods

        methods = list(available_methods()) + list(REPORT_ONLY_METHODS)
        lowered = {k.lower() for k in methods}
        for i, name in enumerate(spec.methods):
            if name.lower() not in lowered:
                problems.append((f"methods[{i}]", f"= {name!r} is not a known method.{did_you_mean(name, methods)} "
                                 f"Remedy: pick from {', '.join(methods)} (`dpcompose methods`), or leave "
                                 f"`methods` out to compare all"))
    from ..compose import available_methods as _am

    for name in spec.options:
        if name == "hdp":  # hypothesis-DP options, not a compose method
            problems.extend(_hdp_option_problems(spec.options[name]))
            if spec.membership is None and spec.hypotheses is None:
                problems.append(("options.hdp", "sets hypothesis-DP options but the plan has no [membership] "
                                 "or [hypotheses]. Remedy: add one, or remove [options.hdp]"))
            elif spec.methods is not None and all(m.lower() == "parallel" for m in spec.methods):
                # any composition method (as the inner method) or "hdp" runs the hypothesis-DP rows
                problems.append(("options.hdp", "sets hypothesis-DP options but `methods` runs no "
                                 "hypothesis-DP row. Remedy: add \"hdp\" (or a composition method) to "
                                 "`methods`, or remove [options.hdp]"))
        elif name not in _am():
            problems.append((f"options.{name}", f"names no registered method. Remedy: use one of "
                             f"{', '.join(_am())}"))
        elif spec.methods is not None and name not in spec.methods:
            problems.append((f"options.{name}", f"sets options for a method the plan does not run. "
                             f"Remedy: add {name!r} to `methods` or remove the options"))
        else:
            problems += _option_problems(name, spec.options[name])
    nd = len(names)
    mem = spec.membership
    if mem is not None:
        for name in (mem.max_per_group or {}):
            if name not in groups:
                problems.append((f"membership.max_per_group.{name}", f"is not a declared database group "
                                 f"(known: {', '.join(groups) or 'none'}). Remedy: use the name of a "
                                 f"[[databases]] entry"))
        if mem.patterns is not None:
            for j, pat in enumerate(mem.patterns):
                if len(pat) != nd:
                    problems.append((f"membership.patterns[{j}]", f"has {len(pat)} bits but the plan has "
                                     f"{nd} databases. Remedy: one bit per database, in declaration order"))
    if spec.hypotheses is not None:
        for which in ("p0", "p1"):
            h = getattr(spec.hypotheses, which)
            if h.uniform_nonzero is False:
                problems.append((f"hypotheses.{which}.uniform_nonzero", "= false is not a hypothesis. Remedy: "
                                 "give point, uniform, uniform_nonzero = true, product or table"))
            vecs: list[tuple[str, list[Any]]] = []
            if h.point is not None:
                vecs.append((f"hypotheses.{which}.point", h.point))
            if h.uniform is not None:
                vecs += [(f"hypotheses.{which}.uniform[{j}]", v) for j, v in enumerate(h.uniform)]
            if h.product is not None:
                vecs.append((f"hypotheses.{which}.product", h.product))
            if h.table is not None:
                vecs += [(f"hypotheses.{which}.table[{j}].b", t.b) for j, t in enumerate(h.table)]
                tot = sum(t.p for t in h.table)
                if abs(tot - 1.0) > 1e-9:
                    problems.append((f"hypotheses.{which}.table", f"probabilities sum to {tot!r}, not 1. "
                                     f"Remedy: make the p values sum to 1"))
            for path, v in vecs:
                if len(v) != nd:
                    problems.append((path, f"has {len(v)} entries but the plan has {nd} databases. "
                                     f"Remedy: one entry per database, in declaration order"))
    if ignore is not None:
        problems = [p for p in problems if not ignore(*p)]
    if prior or problems:
        raise PlanError(source, sorted(list(prior or []) + problems, key=_path_key))
    group_ranges = {name: list(range(first, first + n)) for name, (first, n) in groups.items()}
    return Plan(spec, source, mechanisms, databases, names, expressions, group_ranges)


def parse_plan(data: dict[str, Any] | str, source: str = "<string>") -> Plan:
    """Validate a plan given as a dict (parsed TOML or JSON) or as TOML text.

    Every problem is reported in one pass: what the schema refuses (types, ranges,
    unknown keys) and what it cannot see (undeclared databases, bad expressions, sizes),
    the latter checked on the parts the schema accepted.

    Raises:
        PlanError: naming ``source``, each bad field's path and value, and the remedy.
    """
    if isinstance(data, str):
        data = _loads(data, source, "toml")
    if not data:
        raise PlanError(source, [("invocations", "is required but missing (the plan is empty). "
                                                 f"Remedy: {_REMEDIES['invocations']}")])
    if not isinstance(data, dict):
        raise PlanError(source, [("", f"a plan is a table of keys (title, invocations, ...), not "
                                      f"{type(data).__name__}. Remedy: see docs/plans.md")])
    lost = _lost_numbers(data)
    lost_paths = {p for p, _ in lost}
    try:
        spec = PlanSpec.model_validate(data)
    except ValidationError as exc:
        schema = lost + [p for p in _problems_from_validation(exc) if p[0] not in lost_paths]
        salvaged = _salvage(data, exc)
        if salvaged is None:
            raise PlanError(source, schema) from None
        spec, ignore = salvaged
        _build(spec, source, prior=schema, ignore=ignore)
        raise PlanError(source, schema) from None  # pragma: no cover - _build raises with prior
    if lost:
        _build(spec, source, prior=lost, ignore=lambda path, _: path in lost_paths)
    return _build(spec, source)


def _salvage(data: dict[str, Any], exc: ValidationError
             ) -> tuple[PlanSpec, Callable[[str, str], bool]] | None:
    """The parts of a plan the schema accepted, to check the rest of it in the same pass.

    A refused ``[[invocations]]`` or ``[[databases]]`` entry is replaced by a placeholder and
    a refused top-level table is left out; the returned filter drops the problems that
    only follow from that (anything under a refused part, and what its absence implies).
    None when too little is left to check.
    """
    bad_items: dict[str, set[int]] = {"invocations": set(), "databases": set()}
    bad_keys: set[str] = set()
    for e in exc.errors(include_url=False):
        loc = tuple(e.get("loc", ()))
        if not loc:
            return None
        if loc[0] in bad_items and len(loc) > 1 and isinstance(loc[1], int):
            bad_items[str(loc[0])].add(loc[1])
        else:
            bad_keys.add(str(loc[0]))
    if "invocations" in bad_keys:
        return None
    fixed = {k: v for k, v in data.items() if k not in bad_keys}
    for i in bad_items["invocations"]:
        entry = fixed["invocations"][i]
        db = entry.get("database") if isinstance(entry, dict) else None
        fixed["invocations"] = list(fixed["invocations"])
        fixed["invocations"][i] = {"mechanism": "pure(0)", **({"database": db} if isinstance(db, str) else {})}
    for i in bad_items["databases"]:
        entry = fixed["databases"][i]
        name = entry.get("name") if isinstance(entry, dict) else None
        fixed["databases"] = list(fixed["databases"])
        fixed["databases"][i] = {"name": name if isinstance(name, str) and name.strip() else f"_refused_{i}"}
    try:
        spec = PlanSpec.model_validate(fixed)
    except ValidationError:
        return None
    refused = [f"{k}[{i}]" for k, idx in bad_items.items() for i in idx] + sorted(bad_keys)

    def ignore(path: str, message: str) -> bool:
        if any(path == r or path.startswith(r + ".") or path.startswith(r + "[") for r in refused):
            return True
        if "parameters" in bad_keys and "[parameters] does not give" in message:
            return True
        return bool({"membership", "hypotheses"} & bad_keys) and path.startswith("options.hdp")

    return spec, ignore


def _loads(text: str, source: str, fmt: str) -> Any:
    """TOML or JSON text to data, numbers checked for lost values (see :func:`_parse_float`)."""
    if fmt == "json":
        try:
            return json.loads(text, parse_float=_parse_float)
        except json.JSONDecodeError as exc:
            raise PlanError(source, [("", f"{exc}. Remedy: fix the JSON syntax, or write the plan in TOML "
                                          f"(see docs/plans.md)")],
                            headline=f"plan file {source!r} is not valid JSON") from None
    try:
        return tomllib.loads(text, parse_float=_parse_float)
    except tomllib.TOMLDecodeError as exc:
        hint = (" (it looks like JSON: name the file .json)" if text.lstrip().startswith(("{", "["))
                else "")
        raise PlanError(source, [("", f"{exc}. Remedy: fix the TOML syntax{hint} (see docs/plans.md "
                                      f"for examples)")],
                        headline=f"plan file {source!r} is not valid TOML") from None


def read_plan_data(path: str | Path) -> Any:
    """The data of a plan file: JSON for ``.json`` (or text starting with ``{``), TOML otherwise.

    Raises:
        PlanError: the path is missing, a directory, unreadable, or not valid TOML/JSON.
    """
    p = Path(path)
    head = f"plan file {str(path)!r} cannot be read"
    if p.is_dir():
        inside = sorted(q.name for q in p.iterdir() if q.suffix.lower() in (".toml", ".json"))[:5]
        hint = f" (plan files in it: {', '.join(inside)})" if inside else ""
        raise PlanError(str(path), [("", f"is a directory, not a plan file{hint}. Remedy: give the path of "
                                         f"a .toml or .json plan file")], headline=head)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlanError(str(path), [("", "no such file. Remedy: check the path, or run "
                                         "`dpcompose demo` for a bundled example")], headline=head) from None
    except UnicodeDecodeError:
        raise PlanError(str(path), [("", "is not UTF-8 text. Remedy: save the plan as UTF-8 TOML or JSON")],
                        headline=head) from None
    except OSError as exc:
        raise PlanError(str(path), [("", f"{exc.strerror or exc}. Remedy: check the path and its "
                                         f"permissions")], headline=head) from None
    is_json = p.suffix.lower() == ".json" or (p.suffix.lower() != ".toml" and text.lstrip().startswith("{"))
    return _loads(text, str(path), "json" if is_json else "toml")


def load_plan(path: str | Path) -> Plan:
    """Read and validate a plan file, TOML or JSON (see :func:`parse_plan`)."""
    return parse_plan(read_plan_data(path), source=str(path))


def plan_json_schema() -> dict[str, Any]:
    """The JSON Schema of plan files (``dpcompose schema``)."""
    schema = PlanSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def bundled_plans() -> list[str]:
    """Names of the plans shipped in ``dpcompose/data`` (e.g. ``"hospitals"``)."""
    from importlib import resources

    return sorted(r.name[:-5] for r in resources.files("dpcompose").joinpath("data").iterdir()
                  if r.name.endswith(".toml"))


def bundled_plan(name: str) -> Plan:
    """Load a bundled plan by name (``bundled_plan("hospitals")``)."""
    from importlib import resources

    res = resources.files("dpcompose").joinpath("data", f"{name}.toml")
    if not res.is_file():
        raise PlanError(name, [("", f"no bundled plan named {name!r}; available: {bundled_plans()}")],
                        headline=f"bundled plan {name!r} not found")
    return parse_plan(res.read_text(encoding="utf-8"), source=f"<bundled {name}.toml>")
