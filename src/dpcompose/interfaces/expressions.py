r"""A small expression syntax for lists of mechanisms, used by the CLI and by plan files.

One line describes a composition::

    laplace(scale=20) x 500
    gaussian(sigma=1.1) x 14062 @ poisson(0.0042667)
    pure(0.1) x 50 + laplace(scale=5) x 30 + approx(epsilon=0.05, delta=1e-8) x 20

Grammar (whitespace is ignored between tokens)::

    expression := term ( "+" term )*
    term       := ( mechanism | group ) [ "@" sampler ] [ times count ] [ "@" sampler ]
    group      := "group" "(" mechanism "," [ "size" "=" ] NUMBER ")"
    mechanism  := NAME [ "(" [ argument ( "," argument )* ] ")" ]
    argument   := [ NAME "=" ] NUMBER          (positional arguments fill the
                                                parameters in the order listed below)
    sampler    := ( "poisson" | "without_replacement" | "poisson_substitution" ) "(" [ "rate" "=" ] NUMBER ")"
    times      := "x" | "*" | "×"
    count      := a whole number (1000, 10_000 or 1e6)

Mechanisms and their parameters (in positional order) are those the mechanism families
register (:func:`dpcompose.representations.all_syntax`; :func:`syntax_table` renders
them, and ``docs/plans.md`` lists them), e.g.::

    laplace(scale, sensitivity=1)      gaussian(sigma, sensitivity=1)
    pure(epsilon)                      approx(epsilon, delta)
    rr(epsilon)                        exponential(epsilon)

Numbers may be written ``20``, ``0.1``, ``1e-6`` or ``inf`` (where the parameter
allows it). ``group(laplace(scale=10), size=3) x 50`` is the mechanism seen by a person
who contributes up to 3 records (:class:`~dpcompose.mechanisms.Group`, whose rules are in
:mod:`dpcompose.representations.group`); the size is a whole number >= 1 without free
parameters, a group holds one mechanism without count or sampler, and a sampler after a
group is refused (whether a person's records are sampled together or apart is a property
of the pipeline that the expression does not state). A mechanism may leave out a required parameter (``gaussian x 14062``);
such a *template* cannot be composed, but :mod:`dpcompose.calibration` can fill in the
free parameter (``dpcompose calibrate``).

A parse error raises :class:`ExpressionError` (an
:class:`~dpcompose.errors.InvalidParameterError`) that gives the position, what was
expected, and a caret under the offending character.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Iterable, cast

from .._arith import FUNCTIONS, RESERVED, ArithError, BinOp, Call, Expr, Neg, Num, Var
from .._validation import did_you_mean, lost_in_conversion
from ..errors import DPComposeError, InvalidParameterError, UnsupportedMechanismError
from ..mechanisms import Group, Mechanism, Scheme, Subsampled
from ..representations import MechanismSyntax, all_syntax, syntax_named, syntax_of
from ..representations.group import group_equivalent

__all__ = [
    "ExpressionError",
    "Term",
    "Expression",
    "parse",
    "to_mechanisms",
    "parse_mechanisms",
    "format_expression",
    "format_term",
    "format_mechanism",
    "term_of",
    "variables",
    "count_variables",
    "bind",
    "MECHANISM_SYNTAX",
    "syntax_table",
]


#: expression name -> syntax, derived from the mechanism families
#: (:mod:`dpcompose.representations.syntax`; aliases resolve through ``syntax_named``)
MECHANISM_SYNTAX: dict[str, MechanismSyntax] = {s.name: s for s in all_syntax()}
#: the group wrapper's name (not a family: it wraps one, see :func:`_Parser.group`)
GROUP_NAME = "group"
_SAMPLERS = {"poisson": "poisson", "without_replacement": "without_replacement", "wor": "without_replacement",
             "poisson_substitution": "poisson_substitution"}


class ExpressionError(InvalidParameterError):
    """A mechanism expression could not be parsed or names an invalid mechanism.

    Attributes:
        text: the expression.
        position: 0-based character offset of the problem (None for value errors that
            concern a whole term).
        expected: what the parser expected there.
        field: the parameter concerned, where there is one (e.g. ``"scale"``).
    """

    def __init__(self, message: str, *, text: str = "", position: int | None = None,
                 expected: str = "", field: str | None = None) -> None:
        self.text = text
        self.position = position
        self.expected = expected
        self.field = field
        self.short = message
        full = message
        if position is not None:
            full = f"{message}\n  {text}\n  {' ' * position}^"
        super().__init__(full)


@dataclass(frozen=True)
class Term:
    """One term of an expression: a mechanism (possibly a template), a count and a sampler.

    ``params`` holds the parameters given, as ``(name, value)`` pairs in canonical order.
    ``group`` is the group size g of ``group(mechanism, size=g)`` (None: no group).
    A value (or the count, or the sampling rate) is an :class:`~dpcompose._arith.Expr`
    while it depends on a free parameter; :meth:`bind` gives it a value.
    """

    kind: str
    params: tuple[tuple[str, float | Expr], ...] = ()
    count: int | Expr = 1
    sampling: tuple[str, float | Expr] | None = None
    group: int | None = None

    @property
    def variables(self) -> frozenset[str]:
        """The free parameters this term depends on."""
        out: set[str] = set()
        for v in [v for _, v in self.params] + [self.count] + ([self.sampling[1]] if self.sampling else []):
            if isinstance(v, Expr):
                out |= v.variables
        return frozenset(out)

    def bind(self, values: dict[str, float]) -> "Term":
        """A copy with the free parameters in ``values`` substituted (others stay free).

        Raises:
            ExpressionError: a count that is not a whole number >= 0, or an expression
                that cannot be evaluated (division by zero, overflow).
        """
        def val(v: float | Expr, name: str) -> float | Expr:
            if not isinstance(v, Expr) or not v.variables <= set(values):
                return v
            try:
                return v.evaluate(values)
            except ArithError as exc:
                raise ExpressionError(f"{name} = {v}: {exc}", field=name) from None

        params = tuple((n, val(v, n)) for n, v in self.params)
        count = val(self.count, "count")
        if not isinstance(count, (int, Expr)):
            count = _whole(count, str(self.count), "", None)
        sampling = None if self.sampling is None else (self.sampling[0], val(self.sampling[1], "rate"))
        return Term(self.kind, params, count, sampling, self.group)

    @property
    def missing(self) -> tuple[str, ...]:
        """Required parameters not given (a template when non-empty)."""
        given = {n for n, _ in self.params}
        return tuple(p for p in MECHANISM_SYNTAX[self.kind].required if p not in given)

    def with_params(self, **values: float) -> "Term":
        """A copy with parameters set (used to fill in a template)."""
        d = dict(self.params)
        d.update({k: float(v) for k, v in values.items()})
        order = MECHANISM_SYNTAX[self.kind].params
        return Term(self.kind, tuple((p, d[p]) for p in order if p in d), self.count, self.sampling, self.group)

    def mechanism(self) -> Mechanism:
        """The dpcompose mechanism this term describes (raises for templates)."""
        kind = MECHANISM_SYNTAX[self.kind]
        free = sorted(self.variables)
        if free:
            fld: str | None = next((n for n, v in self.params if isinstance(v, Expr)), "rate")
            raise ExpressionError(
                f"{format_term(self)} has the free parameter(s) {', '.join(free)} without a value; "
                f"give a value (plan files: [parameters] {free[0]} = ...) or solve for it with "
                f"`dpcompose calibrate ... --parameter {free[0]}`", field=fld)
        if self.missing:
            raise ExpressionError(
                f"{self.kind}(...) is missing the parameter(s) {', '.join(self.missing)}; "
                f"write e.g. {format_term(self.with_params(**{p: 1.0 for p in self.missing}))}",
                field=self.missing[0], expected=", ".join(self.missing))
        d = dict(self.params)
        try:
            m = kind.cls(**d)
            if self.group is not None:
                m = Group(m, self.group)
                # refuse a family without a group rule here, naming it and why (NoRuleError,
                # an UnsupportedMechanismError), not later inside an accounting method
                group_equivalent(m)
            if self.sampling is not None:
                scheme, rate = self.sampling
                try:
                    # the rate has no free parameter (raised above); Subsampled checks the value
                    m = Subsampled(m, cast(float, rate), cast(Scheme, scheme))
                except InvalidParameterError as exc:
                    raise ExpressionError(f"sampler {scheme}({_num(rate)}): {exc}", field="rate") from None
        except ExpressionError:
            raise
        except (InvalidParameterError, UnsupportedMechanismError) as exc:
            fld = _field_from_message(str(exc), kind.params)
            raise ExpressionError(str(exc), field=fld) from None
        return m


Expression = tuple[Term, ...]


def _field_from_message(msg: str, params: tuple[str, ...]) -> str | None:
    for p in params:
        if re.search(rf"\.{p}\b", msg):
            return p
    return None


# ---------------------------------------------------------------------------
# tokenizer

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<pow>\*\*)
  | (?P<times>(?<![A-Za-z0-9_.])[xX](?![A-Za-z0-9_(=])|\*|×)
  | (?P<number>(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<sym>[(),=+@/-])
    """,
    re.VERBOSE,
)


@dataclass
class _Tok:
    kind: str  # number, name, sym, times, pow, end
    text: str
    pos: int


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i = 0
    while i < len(text):
        m = _TOKEN_RE.match(text, i)
        if not m:
            raise ExpressionError(
                f"cannot parse mechanism expression at position {i}: unexpected character "
                f"{text[i]!r}; expected a mechanism such as laplace(scale=20), a number, "
                f"'x', '@', '+', ',' or parentheses", text=text, position=i,
                expected="a mechanism, number or operator")
        kind = cast(str, m.lastgroup)  # every alternative of _TOKEN_RE is a named group
        if kind != "ws":
            toks.append(_Tok(kind, m.group(), i))
        i = m.end()
    toks.append(_Tok("end", "", len(text)))
    return toks


# ---------------------------------------------------------------------------
# parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def fail(self, expected: str, tok: _Tok | None = None) -> ExpressionError:
        tok = tok or self.tok
        got = "the end of the expression" if tok.kind == "end" else repr(tok.text)
        return ExpressionError(
            f"cannot parse mechanism expression at position {tok.pos}: expected {expected}, got {got}",
            text=self.text, position=tok.pos, expected=expected)

    def accept(self, kind: str, text: str | None = None) -> _Tok | None:
        t = self.tok
        if t.kind == kind and (text is None or t.text.lower() == text):
            self.i += 1
            return t
        return None

    def expect(self, kind: str, text: str | None, expected: str) -> _Tok:
        t = self.accept(kind, text)
        if t is None:
            raise self.fail(expected)
        return t

    def number(self, what: str) -> float | Expr:
        """An arithmetic value: a float if it has no free parameter, else the expression."""
        start = self.tok
        e = self.arith_sum(what)
        return self.constant(e, start) if not e.variables else e

    def constant(self, e: Expr, start: _Tok) -> float:
        try:
            return e.evaluate()
        except ArithError as exc:
            raise ExpressionError(
                f"cannot evaluate {e} at position {start.pos}: {exc}", text=self.text,
                position=start.pos, expected="a number") from None

    # arithmetic: sum := product (('+'|'-') product)* ; product := unary (('*'|'/') unary)* ;
    # unary := '-' unary | power ; power := atom ['**' unary] ; atom := NUMBER | NAME | call | '(' sum ')'
    def arith_sum(self, what: str) -> Expr:
        e = self.arith_product(what)
        while True:
            t = self.accept("sym", "+") or self.accept("sym", "-")
            if t is None:
                return e
            e = BinOp(t.text, e, self.arith_product(what))

    def arith_product(self, what: str) -> Expr:
        e = self.arith_unary(what)
        while True:
            t = self.accept("times", "*") or self.accept("sym", "/")
            if t is None:
                return e
            e = BinOp(t.text, e, self.arith_unary(what))

    def arith_unary(self, what: str) -> Expr:
        if self.accept("sym", "-"):
            return Neg(self.arith_unary(what))
        base = self.arith_atom(what)
        if self.accept("pow"):
            return BinOp("**", base, self.arith_unary(what))
        return base

    def arith_atom(self, what: str) -> Expr:
        t = self.tok
        if t.kind == "number":
            value = float(t.text.replace("_", ""))
            lost = lost_in_conversion(t.text, value)
            if lost is not None:  # 1e-400 would silently become 0
                raise ExpressionError(
                    f"cannot parse mechanism expression at position {t.pos}: {lost[0]}; {lost[1]}",
                    text=self.text, position=t.pos, expected="a number within the double range",
                    field=what[len("a number for "):].split()[0] if what.startswith("a number for ")
                    else "rate")
            self.i += 1
            return Num(t.text)
        if t.kind == "sym" and t.text == "(":
            self.i += 1
            e = self.arith_sum(what)
            self.expect("sym", ")", "')'")
            return e
        if t.kind == "name":
            low = t.text.lower()
            if low in ("inf", "infinity"):
                self.i += 1
                return Num(low)
            if low in FUNCTIONS and self.toks[self.i + 1].text == "(":
                self.i += 2
                e = self.arith_sum(what)
                self.expect("sym", ")", "')'")
                return Call(low, e)
            if low not in RESERVED and low not in MECHANISM_SYNTAX and low not in _SAMPLERS and low != GROUP_NAME:
                self.i += 1
                return Var(t.text)
        raise self.fail(what)

    def parse(self) -> Expression:
        if self.tok.kind == "end":
            raise self.fail("a mechanism such as laplace(scale=20) or gaussian(sigma=1.1)")
        terms = [self.term()]
        while self.accept("sym", "+"):
            terms.append(self.term())
        if self.tok.kind != "end":
            raise self.fail("'x' and a count, '@' and a sampler, '+' and another mechanism, or the end")
        return tuple(terms)

    def term(self) -> Term:
        if self.tok.kind == "name" and self.tok.text.lower() == GROUP_NAME:
            key, params, size = self.group()
        else:
            key, params = self.call()
            size = None
        count: int | Expr = 1
        sampling = None
        seen_count = False
        for _ in range(2):
            if sampling is None and self.tok.kind == "sym" and self.tok.text == "@":
                if size is not None:
                    raise self.fail(
                        "'x' and a count, '+' or the end: a sampler after group(...) is refused (a "
                        "person's records may be sampled together or apart, which changes the guarantee); "
                        "account per person instead, e.g. gaussian(sigma, sensitivity=g*C) @ poisson(q)")
                self.i += 1
                sampling = self.sampler()
            elif not seen_count and self.accept("times"):
                count = self.count()
                seen_count = True
        return Term(key, params, count, sampling, size)

    def group(self) -> tuple[str, tuple[tuple[str, float | Expr], ...], int]:
        """``group(mechanism, size=g)``: the inner mechanism and the size (a whole number >= 1)."""
        self.i += 1
        self.expect("sym", "(", "'(' and a mechanism, as in group(laplace(scale=10), size=3)")
        if self.tok.kind == "name" and self.tok.text.lower() == GROUP_NAME:
            raise self.fail("a mechanism: a group inside a group is refused; write one group with the "
                            "product of the sizes (a group of groups of sizes g1 and g2 is one of size g1*g2)")
        key, params = self.call()
        if self.tok.kind in ("times",) or (self.tok.kind == "sym" and self.tok.text == "@"):
            raise self.fail("',' and the size: write the count and sampler after the group, "
                            "as in group(laplace(scale=10), size=3) x 50")
        self.expect("sym", ",", "',' and the group size, as in group(laplace(scale=10), size=3)")
        if self.tok.kind == "name" and self.tok.text.lower() == "size":
            self.i += 1
            self.expect("sym", "=", "'='")
        t = self.tok
        what = "a group size (a whole number >= 1 such as 3)"
        e = self.arith_sum(what)
        if e.variables:
            raise ExpressionError(
                f"cannot parse mechanism expression at position {t.pos}: the group size {e} has the free "
                f"parameter(s) {', '.join(sorted(e.variables))}; the size is a whole number >= 1 given as a "
                f"number, such as size=3", text=self.text, position=t.pos, expected=what, field="size")
        value = self.constant(e, t)
        if not (math.isfinite(value) and value >= 1 and value == int(value)):
            raise ExpressionError(
                f"cannot parse mechanism expression at position {t.pos}: the group size {_num(value)} "
                f"is not a whole number >= 1 (the most records one person contributes); write e.g. size=3",
                text=self.text, position=t.pos, expected=what, field="size")
        self.expect("sym", ")", "')' after the group size")
        return key, params, int(value)

    def call(self) -> tuple[str, tuple[tuple[str, float | Expr], ...]]:
        """``NAME [ "(" arguments ")" ]``: the mechanism's name and its parameters in canonical order."""
        name_tok = self.tok
        if name_tok.kind != "name":
            raise self.fail("a mechanism name (" + ", ".join(MECHANISM_SYNTAX) + ")")
        found = syntax_named(name_tok.text)
        key = found.name if found is not None else None
        if key is None:
            raise ExpressionError(
                f"cannot parse mechanism expression at position {name_tok.pos}: unknown mechanism "
                f"{name_tok.text!r}.{did_you_mean(name_tok.text, [n for syn in all_syntax() for n in (syn.name, *syn.aliases)])} Expected one of "
                f"{', '.join(MECHANISM_SYNTAX)} (case is ignored)",
                text=self.text, position=name_tok.pos, expected="a mechanism name")
        self.i += 1
        kind = MECHANISM_SYNTAX[key]
        params: dict[str, float | Expr] = {}
        if self.accept("sym", "("):
            positional = 0
            if not self.accept("sym", ")"):
                while True:
                    if self.tok.kind == "name" and self.toks[self.i + 1].text == "=":
                        ptok = self.tok
                        pname = ptok.text.lower()
                        if pname not in kind.params:
                            raise ExpressionError(
                                f"cannot parse mechanism expression at position {ptok.pos}: "
                                f"{key}() has no parameter {ptok.text!r}; expected one of "
                                f"{', '.join(kind.params)}", text=self.text, position=ptok.pos,
                                expected=" or ".join(kind.params), field=pname)
                        self.i += 2
                    else:
                        if positional >= len(kind.params):
                            raise self.fail(f"')' ({key}() takes at most {len(kind.params)} parameters)")
                        pname = kind.params[positional]
                        ptok = self.tok
                        positional += 1
                    if pname in params:
                        raise ExpressionError(
                            f"cannot parse mechanism expression at position {ptok.pos}: "
                            f"parameter {pname!r} given twice", text=self.text, position=ptok.pos,
                            expected="each parameter once", field=pname)
                    params[pname] = self.number(f"a number for {pname} (such as 20, 0.1 or 1e-6)")
                    if self.accept("sym", ")"):
                        break
                    self.expect("sym", ",", "',' or ')'")
        return key, tuple((p, params[p]) for p in kind.params if p in params)

    def count(self) -> int | Expr:
        t = self.tok
        what = "a count after 'x' (a whole number such as 500)"
        if t.kind not in ("number", "name") and not (t.kind == "sym" and t.text in "(-"):
            raise self.fail(what)
        e = self.arith_product(what)
        if e.variables:
            return e
        return _whole(self.constant(e, t), str(e), self.text, t.pos)

    def sampler(self) -> tuple[str, float | Expr]:
        t = self.tok
        scheme = _SAMPLERS.get(t.text.lower()) if t.kind == "name" else None
        if scheme is None:
            raise self.fail("a sampler after '@': poisson(RATE), without_replacement(RATE) "
                            "or poisson_substitution(RATE)")
        self.i += 1
        self.expect("sym", "(", "'(' and a sampling rate")
        if self.tok.kind == "name" and self.tok.text.lower() == "rate":
            self.i += 1
            self.expect("sym", "=", "'='")
        rate = self.number("a sampling rate in (0, 1], such as 0.004 or 256/60000")
        self.expect("sym", ")", "')'")
        return (scheme, rate)


def _whole(value: float, text: str, source: str, position: int | None) -> int:
    """A count: a whole number >= 0 (``ExpressionError`` naming the value otherwise)."""
    if value >= 0 and math.isfinite(value) and value == int(value):
        return int(value)
    where = f" at position {position}" if position is not None else ""
    hint = ""
    if value >= 0 and math.isfinite(value):
        hint = f" (write ceil({text}) = {math.ceil(value)} or floor({text}) = {math.floor(value)})"
    raise ExpressionError(
        f"cannot parse mechanism expression{where}: the count {text} = {value!r} is not a whole "
        f"number >= 0{hint}; expected a count such as 500", text=source, position=position,
        expected="a whole number", field="count")


def variables(expr: Iterable[Term]) -> frozenset[str]:
    """The free parameters of an expression (``gaussian(sigma=s) x 10`` -> ``{"s"}``)."""
    out: frozenset[str] = frozenset()
    for t in expr:
        out |= t.variables
    return out


def count_variables(expr: Iterable[Term]) -> frozenset[str]:
    """The free parameters that appear in counts (they take whole-number values)."""
    out: frozenset[str] = frozenset()
    for t in expr:
        if isinstance(t.count, Expr):
            out |= t.count.variables
    return out


def bind(expr: Iterable[Term], values: dict[str, float]) -> Expression:
    """The expression with the free parameters in ``values`` substituted."""
    return tuple(t.bind(values) for t in expr)


def parse(text: str) -> Expression:
    """Parse an expression into terms (templates allowed; values not yet validated).

    Raises:
        ExpressionError: with the position and what was expected.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"a mechanism expression must be a string, got {text!r}")
    return _Parser(text).parse()


def to_mechanisms(expr: Expression | str) -> list[tuple[Mechanism, int]]:
    """``(mechanism, count)`` pairs for :func:`dpcompose.compose` (templates raise)."""
    if isinstance(expr, str):
        text = expr
        expr = parse(expr)
    else:
        text = ""
    out = []
    for t in expr:
        try:
            out.append((t.mechanism(), cast(int, t.count)))  # mechanism() raised if the count has a free parameter
        except ExpressionError as exc:
            if text and exc.text == "":
                raise ExpressionError(f"in {text!r}: {exc.short}", field=exc.field) from None
            raise
    return out


def parse_mechanisms(text: str) -> list[tuple[Mechanism, int]]:
    """Parse and build in one step: ``parse_mechanisms("laplace(20) x 500")``."""
    return to_mechanisms(text)


def _num(x: float | Expr) -> str:
    if isinstance(x, Expr):
        return str(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


def format_term(t: Term) -> str:
    """The canonical text of a term (parses back to an equal term)."""
    args = ", ".join(f"{n}={_num(v)}" for n, v in t.params)
    s = f"{t.kind}({args})" if args else t.kind
    if t.group is not None:
        s = f"{GROUP_NAME}({s}, size={t.group})"
    if t.sampling is not None:
        s += f" @ {t.sampling[0]}({_num(t.sampling[1])})"
    if t.count != 1:
        count = str(t.count)
        if isinstance(t.count, Expr) and t.count.precedence < 2:
            count = f"({count})"
        s += f" x {count}"
    return s


def format_expression(expr: Iterable[Term]) -> str:
    """The canonical text of an expression; ``parse(format_expression(e)) == e``."""
    return " + ".join(format_term(t) for t in expr)


def term_of(mechanism: Mechanism, count: int = 1) -> Term:
    """The term describing a dpcompose mechanism (inverse of :meth:`Term.mechanism`)."""
    sampling = None
    if isinstance(mechanism, Subsampled):
        sampling = (mechanism.scheme, float(mechanism.rate))
        mechanism = mechanism.mechanism
    size = None
    if isinstance(mechanism, Group):
        if sampling is not None:
            raise UnsupportedMechanismError(
                f"term_of: the expression syntax has no sampler after group(...) (got {mechanism!r} "
                f"subsampled); account per person instead")
        size = mechanism.size
        mechanism = mechanism.mechanism
    kind = syntax_of(type(mechanism))  # NoRuleError (an UnsupportedMechanismError) if none
    params = tuple((p, float(getattr(mechanism, p))) for p in kind.params)
    return Term(kind.name, params, count, sampling, size)


def format_mechanism(mechanism: Mechanism, count: int = 1) -> str:
    """Expression text for a mechanism, e.g. ``laplace(scale=20, sensitivity=1) x 500``."""
    return format_term(term_of(mechanism, count))


def syntax_table() -> str:
    """The registered mechanisms as text: ``name(parameters)``, aliases and class, one per line."""
    lines = []
    for syn in all_syntax():
        params = ", ".join(p.name if p.default is None else f"{p.name}={p.default:g}" for p in syn.parameters)
        alias = f" (also {', '.join(syn.aliases)})" if syn.aliases else ""
        lines.append(f"{syn.name}({params}){alias}: {syn.cls.__name__}")
    lines.append(f"{GROUP_NAME}(mechanism, size): Group")
    return "\n".join(lines)
