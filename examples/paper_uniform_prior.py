"""The uninformative-prior adversary (Hartmann, Bindschaedler and West, Sec. V-B).

p0: the target is in no database; p1: uniform over the 2^k - 1 non-zero b-vectors.
Prints the paper's bounds (Eqs. 3-4, Thm 3, Cor. 6, Cor. 7) beside dpcompose's exact
value (DESIGN note 3) and the classic worst case (all k composed).

Run: python examples/paper_uniform_prior.py
"""

import dpcompose as dpc
from dpcompose.hypotheses import hdp
from dpcompose.hypotheses import cor6, cor7, eq4, thm3, uniform_nonzero_guarantee


def row(name, eps, delta, note=""):
    print(f"  {name:<44} eps = {eps:9.5f}  delta = {delta:.3g}")
    if note:
        print(f"      ({note})")


def pure(k, eps1, delta):
    mechs = [dpc.RandomizedResponse(eps1)] * k
    print(f"\nk = {k} randomized-response (eps' = {eps1})-DP mechanisms, target delta = {delta:g}")
    classic = hdp(mechs, method="exact")  # Thm 1: unconstrained HDP = classic composition
    exact = uniform_nonzero_guarantee(mechs)
    p = eq4(eps1, 0.0, k)
    row("classic composition, all pairs (exact)", classic.epsilon(delta), delta)
    row("paper Eqs. 3-4 (simple composition)", p.epsilon, p.delta, p.label)
    row("paper Cor. 7", cor7(eps1, 0.0, k).epsilon, 0.0, cor7(eps1, 0.0, k).label)
    t = thm3(mechs, delta, method="exact")
    row("paper Thm 3, each summand composed exactly", t.epsilon, t.delta, t.label)
    c = cor6(mechs, delta, method="optimal")
    row("paper Cor. 6, optimal composition inside", c.epsilon, c.delta, c.label)
    row("dpcompose exact (uniform prior), at delta = 0", exact.epsilon(0.0), 0.0)
    row(f"dpcompose exact (uniform prior), delta {delta:g}", exact.epsilon(delta), delta)
    return p, exact


def approx(k, eps1, delta1):
    mechs = [dpc.ApproxDP(eps1, delta1)] * k
    print(f"\nk = {k} ({eps1}, {delta1:g})-DP mechanisms (the class's dominating pair, exact)")
    p = eq4(eps1, delta1, k)
    exact = uniform_nonzero_guarantee(mechs)
    row("classic simple composition", k * eps1, k * delta1)
    row("paper Eqs. 3-4 / Cor. 7", p.epsilon, p.delta, p.label)
    row("dpcompose exact: eps at the paper's delta", exact.epsilon(p.delta), p.delta)
    print(f"  {'dpcompose exact: delta at the paper eps':<44} delta = {exact.delta(p.epsilon):.6g}\n"
          f"      (paper {p.delta:.6g})")
    return p, exact


def main():
    print("Uniform prior over the non-zero b-vectors vs the zero vector")
    for k in (4, 10, 30):
        pure(k, 0.5, 1e-6)
    approx(10, 0.5, 1e-7)


if __name__ == "__main__":
    main()
