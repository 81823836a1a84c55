"""Train a tiny model with Opacus and report dpcompose's certified epsilon after every epoch.

The one change to an Opacus script: ``PrivacyEngine(accountant="dpcompose")`` (after
``import dpcompose.integrations.opacus``, which registers the accountant). Needs
``pip install "dpcompose[opacus]"`` (CPU torch is enough).

Run: python examples/opacus_training.py [EPOCHS]
"""

from __future__ import annotations

import sys
import warnings

import torch
from opacus import PrivacyEngine
from opacus.accountants import RDPAccountant

import dpcompose.integrations.opacus  # noqa: F401  (registers accountant="dpcompose")
from dpcompose.report import fmt_lower, fmt_upper

DELTA = 1e-5


def main(epochs: int = 3) -> list[float]:
    warnings.filterwarnings("ignore", category=UserWarning)  # torch/opacus hook notices
    torch.manual_seed(0)
    # a synthetic task: 512 points, 8 features, the label is the sign of a linear score
    x = torch.randn(512, 8)
    y = (x @ torch.linspace(-1.0, 1.0, 8) > 0).long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

    engine = PrivacyEngine(accountant="dpcompose")            # <- the one changed argument
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader,
        noise_multiplier=1.0, max_grad_norm=1.0)               # Poisson sampling (the default)

    eps = []
    print("certified epsilon after each epoch (Poisson sampling, add/remove one example):")
    for epoch in range(1, epochs + 1):
        correct = total = 0
        for xb, yb in loader:
            optimizer.zero_grad()
            out = model(xb)
            torch.nn.functional.cross_entropy(out, yb).backward()
            optimizer.step()
            correct += int((out.argmax(1) == yb).sum())
            total += len(yb)
        lo, hi = engine.accountant.get_epsilon_bounds(DELTA)  # certified bracket
        eps.append(engine.get_epsilon(DELTA))                 # certified upper bound
        print(f"epoch {epoch}: train accuracy {correct / max(total, 1):.2f}, epsilon in "
              f"[{fmt_lower(lo)}, {fmt_upper(hi)}] at delta = {DELTA:g}")

    rdp = RDPAccountant()
    rdp.history = list(engine.accountant.history)
    print(f"Opacus RDP on the same steps: epsilon <= {fmt_upper(rdp.get_epsilon(DELTA))}")
    return eps


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
