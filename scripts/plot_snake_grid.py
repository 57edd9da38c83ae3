"""Draw the Snake study figures from a sweep folder: python scripts/plot_snake_grid.py multirun/snake_grid/<date> [--window 512]"""

import argparse

from eval.snake_figures import make_all

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("root")
    ap.add_argument("--out", default=None)
    ap.add_argument("--window", type=int, default=512)
    a = ap.parse_args()
    res = make_all(a.root, a.out, a.window)
    print(res["grid"], res["peak_final"], sep="\n")
