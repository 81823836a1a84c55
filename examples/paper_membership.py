"""Membership constraints (Hartmann, Bindschaedler and West, Sec. V-A, Examples 1-3 and V-A1).

The paper states its examples symbolically (max over CompGuarantee of the databases an
allowed pair can differ on). Here each is evaluated on concrete mechanisms: the
classic composition of everything, the paper's expression, dpcompose's hdp (the
worst allowed pair, composed with the tightest method) and McSherry's parallel
composition as the paper applies it (Sec. V-A1), for unbounded and bounded neighbours.

Run: python examples/paper_membership.py
"""

import textwrap

import numpy as np

import dpcompose as dpc
from dpcompose.report import fmt_upper
from dpcompose.hypotheses import Allowed, AtMost, hdp, parallel_composition

DELTA = 1e-6


def show(name, value, note=""):
    """One row: the name, epsilon at DELTA (rounded up), and any note wrapped below it."""
    print(f"  {name:<56} eps = {fmt_upper(value):>9}")
    for line in textwrap.wrap(note, 72):
        print(f"      {line}")


def example1():
    rng = np.random.default_rng(2023)
    k, cap = 1000, 365
    scales = rng.uniform(10.0, 100.0, size=k)
    mechs = [dpc.Laplace(scale=float(s)) for s in scales]
    print(f"\nExample 1 (hospitals): k = {k} Laplace mechanisms, scales in [10, 100],\n"
          f"at most {cap} per person; epsilon at delta = {DELTA:g}")
    classic = dpc.compose(mechs, method="advanced")
    show("classic composition of all k (advanced)", classic.epsilon(DELTA))
    worst = sorted(mechs, key=lambda m: m.scale)
    for neighbors, m in (("unbounded", cap), ("bounded", 2 * cap)):
        print(f" {neighbors}:")
        paper = dpc.compose(worst[:m], method="advanced")
        show(f"paper: max CompGuarantee over {m} databases (advanced)"[:56], paper.epsilon(DELTA))
        g = hdp(mechs, membership=AtMost(cap), neighbors=neighbors, method="advanced")
        show("dpcompose hdp, inner advanced", g.epsilon(DELTA), g.provenance.get("worst_case", ""))
        g = hdp(mechs, membership=AtMost(cap), neighbors=neighbors, method="rdp")
        show("dpcompose hdp, inner rdp", g.epsilon(DELTA))
        p = parallel_composition(mechs, membership=AtMost(cap), neighbors=neighbors)
        show(f"parallel composition ({m} x max eps_i)", p.epsilon(DELTA))


def example2():
    k = 40
    eps = [(0.1, 0.3, 0.5, 0.9)[i % 4] for i in range(k)]
    mechs = [dpc.RandomizedResponse(e) for e in eps]
    print(f"\nExample 2 (subsidiaries): k = {k} randomized-response mechanisms,\n"
          f"eps_i in {{0.1, 0.3, 0.5, 0.9}}, a person works at one subsidiary")
    for neighbors in ("unbounded", "bounded"):
        g = hdp(mechs, membership=AtMost(1), neighbors=neighbors, method="exact")
        top = sorted(eps)[-2:]
        paper = max(eps) if neighbors == "unbounded" else None
        if neighbors == "unbounded":
            show("unbounded: paper max_i CompGuarantee(M_i) = max eps_i", paper)
        else:
            two = hdp([dpc.RandomizedResponse(e) for e in top], method="exact")
            show("bounded: paper max_{i != j} CompGuarantee(M_i, M_j), exact", two.epsilon(DELTA))
        show(f"{neighbors}: dpcompose hdp (exact)", g.epsilon(DELTA))
        show(f"{neighbors}: parallel composition",
             parallel_composition(mechs, membership=AtMost(1), neighbors=neighbors).epsilon(DELTA))
    show("classic composition of all k (exact)", hdp(mechs, method="exact").epsilon(DELTA))


def example3():
    k1, k2, k3 = 5, 6, 10  # 5 common features, 1 ad feature, 4 paid features
    eps = [0.3] * k3
    mechs = [dpc.RandomizedResponse(e) for e in eps]
    c1 = tuple([1] * k2 + [0] * (k3 - k2))           # free user
    c2 = tuple([1] * k1 + [0] * (k2 - k1) + [1] * (k3 - k2))  # paid user
    c3 = tuple([0] * k3)

    def comp(idx):  # exact composition of the mechanisms with 1-based indices idx
        return hdp([mechs[i - 1] for i in idx], method="exact").epsilon(DELTA)

    print(f"\nExample 3 (software columns): k1, k2, k3 = {k1}, {k2}, {k3};\n"
          f"randomized response eps = 0.3 per column")
    print(" unbounded:")
    paper_u = max(comp(range(k1, k3 + 1)), comp(range(1, k2 + 1)))
    g = hdp(mechs, membership=Allowed([c1, c2, c3]), neighbors="unbounded", method="exact")
    show("paper: max{Comp(M_k1..M_k3), Comp(M_1..M_k2)}", paper_u,
         "NOT a guarantee: the pair (c2, 0) is missing" if paper_u < g.epsilon(DELTA) - 1e-9 else "")
    show("dpcompose hdp (pairs (c1, 0) and (c2, 0), exact)", g.epsilon(DELTA))
    print(" bounded:")
    paper_b = max(comp(range(k1, k3 + 1)), comp(range(1, k2 + 1)),
                  comp(list(range(1, k1 + 1)) + list(range(k2, k3 + 1))))
    g = hdp(mechs, membership=Allowed([c1, c2, c3]), neighbors="bounded", method="exact")
    show("paper: max of the three CompGuarantees", paper_b, "(valid; index ranges one too wide)")
    show("dpcompose hdp (exact)", g.epsilon(DELTA))
    show("classic composition of all k3 (exact)", comp(range(1, k3 + 1)))


def main():
    example1()
    example2()
    example3()


if __name__ == "__main__":
    main()
