"""Composite hypotheses (Hartmann, Bindschaedler and West, Thm 1, Sec. V-B and Alg. 3).

1. Thm 1: with every hypothesis pair allowed, hypothesis DP is classic DP.
2. The per-pair-epsilon formula of Sec. V-B against the truth, on the counterexample of
   DESIGN note 1 (where it under-reports) and on a point-mass case (where it is valid).
3. The coupling bounds (Alg. 3, optimal transport) and the exact value, with a Monte
   Carlo run of the generalized composition experiment (Alg. 2) beside them.

Run: python examples/paper_composite.py
"""

import math

import dpcompose as dpc
from dpcompose.hypotheses import Hypothesis, hdp, paper_formula
from dpcompose.hypotheses.experiment import FixedAdversary, RandomizedResponseQuery, Step, estimate_delta

RR = dpc.RandomizedResponse


def thm1():
    mechs = [RR(0.5), RR(1.0), RR(0.2), RR(0.7)]
    print("Thm 1: unconstrained hypothesis DP = classic composition (exact, delta = 1e-6)")
    print(f"  hdp, unbounded        eps = {hdp(mechs, method='exact').epsilon(1e-6):.6f}")
    print(f"  hdp, bounded          eps = {hdp(mechs, neighbors='bounded', method='exact').epsilon(1e-6):.6f}")
    print(f"  compose, optimal      eps = {dpc.compose(mechs, method='optimal').epsilon(1e-6):.6f}")
    print(f"  simple composition    eps = {sum(m.epsilon for m in mechs):.6f}")


def counterexample():
    mechs = [RR(1.0), RR(1.0)]
    p0 = Hypothesis.uniform([(1, 0), (0, 1)])
    p1 = Hypothesis.uniform([(0, 0), (0, 1)])
    print("\nDESIGN note 1: randomized response eps' = 1, k = 2,")
    print("  p0 uniform on {(1,0), (0,1)}, p1 uniform on {(0,0), (0,1)}, delta = 0")
    f = paper_formula(mechs, hypotheses=(p0, p1), delta=0.0, method="exact")
    print(f"  paper formula ln((e+1)/2)         eps = {f.epsilon:.4f}   [{f.label}]")
    for coupling in ("alg3", "optimal", "exact"):
        g = hdp(mechs, hypotheses=(p0, p1), coupling=coupling, method="exact")
        print(f"  dpcompose, coupling={coupling:<8}      eps = {g.epsilon(0.0):.4f}")
    print(f"  truth ln((e^2+1)/(e+1))           eps = {math.log((math.e ** 2 + 1) / (math.e + 1)):.4f}")
    adv = FixedAdversary([Step((), ("t",), RandomizedResponseQuery(lambda db: "t" in db, 1.0))] * 2)
    g = hdp(mechs, hypotheses=(p0, p1), coupling="exact")
    for e in (0.3, 0.6):
        est = estimate_delta(adv, 2, p0, p1, e, samples=2000, seed=1)
        print(f"  Monte Carlo of Alg. 2: delta({e}) = {est.estimate:.4f} +- {est.standard_error:.4f}\n"
              f"    (exact, both directions: {g.delta(e):.4f})")


def point_mass():
    mechs = [RR(0.7), RR(1.1), RR(0.3)]
    p0 = Hypothesis.point((0, 0, 0))
    p1 = Hypothesis.table({(1, 0, 0): 0.2, (1, 1, 0): 0.5, (0, 1, 1): 0.3})
    print("\nPoint mass vs a mixture (the formula is valid here), delta = 1e-3")
    f = paper_formula(mechs, hypotheses=(p0, p1), delta=1e-3, method="exact")
    print(f"  paper formula                     eps = {f.epsilon:.4f}   [{f.label}]")
    for coupling in ("alg3", "optimal", "exact"):
        g = hdp(mechs, hypotheses=(p0, p1), coupling=coupling, method="exact")
        print(f"  dpcompose, coupling={coupling:<8}      eps = {g.epsilon(1e-3):.4f}")


def main():
    thm1()
    counterexample()
    point_mass()


if __name__ == "__main__":
    main()
