"""Reproduce two numbers from the seed article on generating 15-puzzle positions.

1. The mean optimal solution length of uniformly random solvable 15-puzzles.  The article
   gives 52.59; the exact value over all 16!/2 positions (Korf & Schultze's complete
   breadth-first search, ``distances-4x4.txt``) is 52.589472.  We solve ``--samples``
   positions optimally and print the sample mean with a 95% confidence interval beside both.
2. The curve of mean optimal length against the number of random-walk steps from the goal
   (walks that never undo their last move): a table always, a PNG when matplotlib is
   installed.

Every position is solved optimally (``solver.workloads.batch.solve_stream``: IDA* with the pattern
databases on 4x4, ``--jobs`` processes).  ``--shape 3x3`` runs the same experiment on the
8-puzzle, where the exact tables answer instantly — a quick check of the script itself.

Measured on 2 cores with the 6-6-3 database (``--samples 1000 --walk-samples 200 --seed 7``,
under 4 minutes): 52.657 ± 0.314 (95% CI 52.343 .. 52.971), which holds both the article's 52.59
and the exact 52.589472; walks reach 50% of that mean after 30 steps, 90% after ~120 and the
plateau at ~300 (the default 200 samples: 52.705 ± 0.772, one minute).

    python scripts/reproduce_article.py                       # 4x4, 200 samples (build-pdb first)
    python scripts/reproduce_article.py --shape 3x3 --samples 2000 --walk-samples 500
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from solver.api import SearchOptions, usable_cores
from solver.core.board import Board, Shape, goal_board
from solver.workloads import batch
from solver.workloads.distributions import distance_counts
from solver.workloads.generate import shuffled, walked

ARTICLE_MEAN_4X4 = 52.59  # the article's mean optimal length of random solvable 15-puzzles
Z_95 = 1.959964  # two-sided 95% normal quantile
DEFAULT_STEPS = {
    "4x4": [0, 10, 20, 30, 40, 50, 60, 80, 100, 125, 150, 200, 250, 300, 400, 500],
    "3x3": [0, 5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200],
}


def mean_ci(values) -> tuple[float, float, float]:
    """(mean, half-width of the 95% confidence interval, sample standard deviation).

    The interval is the normal one, mean ± 1.96 s/√n: with n ≥ 200 solution lengths (a
    bounded, roughly bell-shaped distribution) the t correction changes it by under 1%.
    """
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return float(x.mean()) if x.size else math.nan, math.nan, math.nan
    s = float(x.std(ddof=1))
    return float(x.mean()), Z_95 * s / math.sqrt(x.size), s


def solve_lengths(boards: np.ndarray, goal: Board, jobs: int, data_dir, label: str) -> list[int]:
    """Optimal solution lengths of the rows of ``boards`` (in order)."""
    lines = [" ".join(map(str, row)) for row in boards.tolist()]
    opts = SearchOptions(data_dir=data_dir)
    out = []
    t0 = time.perf_counter()
    for line, result in batch.solve_stream(
        lines, goal=goal, shape=goal.shape, options=opts, jobs=jobs, progress=sys.stderr.isatty()
    ):
        if isinstance(result, Exception):
            raise SystemExit(f"reproduce_article: cannot solve {line}: {result}")
        out.append(result.length)
    dt = time.perf_counter() - t0
    print(f"  [{label}: {len(out)} positions solved optimally in {dt:.1f} s]", file=sys.stderr)
    return out


def uniform_mean(shape: Shape, goal: Board, samples: int, rng, jobs, data_dir) -> dict:
    lengths = solve_lengths(shuffled(goal, samples, rng), goal, jobs, data_dir, "uniform")
    mean, half, sd = mean_ci(lengths)
    return {
        "samples": samples,
        "mean": mean,
        "ci": half,
        "sd": sd,
        "min": min(lengths),
        "max": max(lengths),
    }


def walk_curve(goal: Board, steps: list[int], samples: int, rng, jobs, data_dir) -> list[dict]:
    rows = []
    for n in steps:
        lengths = solve_lengths(
            walked(goal, samples, n, rng), goal, jobs, data_dir, f"walks of {n} steps"
        )
        mean, half, _ = mean_ci(lengths)
        rows.append({"steps": n, "samples": samples, "mean": mean, "ci": half})
    return rows


def plot_curve(rows: list[dict], exact_mean: float, shape: Shape, path: str) -> bool:
    """Write the walk curve as a PNG; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.errorbar(
        [r["steps"] for r in rows],
        [r["mean"] for r in rows],
        yerr=[r["ci"] for r in rows],
        marker="o",
        capsize=3,
        label="random walk (mean, 95% CI)",
    )
    ax.axhline(
        exact_mean,
        color="#c44e52",
        linestyle="--",
        label=f"uniformly random position: {exact_mean:.4f}",
    )
    ax.set_xlabel("random-walk steps from the goal (never undoing a move)")
    ax.set_ylabel("mean optimal solution length")
    ax.set_title(f"{shape}: how far a random walk gets")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--shape", default="4x4", help="4x4 (the article) or 3x3 (a quick check)")
    p.add_argument(
        "--samples", type=int, default=200, help="uniformly random positions to solve (default 200)"
    )
    p.add_argument("--walk-samples", type=int, default=50, help="walks per step count (default 50)")
    p.add_argument(
        "--steps",
        default=None,
        help="comma-separated walk lengths (default: a range that reaches the plateau)",
    )
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--jobs", type=int, default=usable_cores())
    p.add_argument("--data-dir", default=None)
    p.add_argument(
        "--plot", default=None, help="PNG for the walk curve (default walk-curve-<shape>.png)"
    )
    p.add_argument("--skip-walks", action="store_true", help="only the uniform mean")
    args = p.parse_args(argv)

    shape = Shape.parse(args.shape)
    goal = goal_board(shape)
    rng = np.random.default_rng(args.seed)
    exact = distance_counts(shape, goal, args.data_dir)
    article = ARTICLE_MEAN_4X4 if shape == Shape(4, 4) else None

    print(f"# {shape}: mean optimal length of uniformly random solvable positions")
    u = uniform_mean(shape, goal, args.samples, rng, args.jobs, args.data_dir)
    lo, hi = u["mean"] - u["ci"], u["mean"] + u["ci"]
    print(
        f"sampled  {u['mean']:.3f} ± {u['ci']:.3f}  (95% CI {lo:.3f} .. {hi:.3f}; "
        f"n = {u['samples']}, sd {u['sd']:.2f}, range {u['min']}..{u['max']})"
    )
    if article is not None:
        print(
            f"article  {article:.2f}   {'inside' if lo <= article <= hi else 'OUTSIDE'} "
            f"the interval"
        )
    print(
        f"exact    {exact.mean:.6f}  {'inside' if lo <= exact.mean <= hi else 'OUTSIDE'} "
        f"the interval  ({exact.source})"
    )

    if args.skip_walks:
        return 0
    steps = (
        [int(s) for s in args.steps.split(",")]
        if args.steps
        else DEFAULT_STEPS.get(str(shape), DEFAULT_STEPS["4x4"])
    )
    print()
    print(
        f"# {shape}: mean optimal length after n random-walk steps from the goal "
        f"({args.walk_samples} walks each)"
    )
    rows = walk_curve(goal, steps, args.walk_samples, rng, args.jobs, args.data_dir)
    print(f"{'steps':>6}  {'mean':>7}  {'95% CI':>7}  {'share of the uniform mean':>26}")
    for r in rows:
        print(
            f"{r['steps']:>6}  {r['mean']:>7.2f}  ±{r['ci']:>6.2f}  "
            f"{100 * r['mean'] / exact.mean:>25.1f}%"
        )
    print(f"{'∞':>6}  {exact.mean:>7.2f}  (uniformly random position, exact)")
    path = args.plot or f"walk-curve-{shape}.png"
    if plot_curve(rows, exact.mean, shape, path):
        print(f"wrote {path}", file=sys.stderr)
    else:
        print("matplotlib is not installed: no PNG (pip install 'npuzzle[plot]')", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
