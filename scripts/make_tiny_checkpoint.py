"""Build the tiny random Qwen3 checkpoint + tokenizer (offline). Logic lives in rl/tiny.py."""

from __future__ import annotations

import argparse

from rl.tiny import DEFAULT_CACHE_DIR, tiny_checkpoint, write_tiny_checkpoint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out_dir", nargs="?", default=None,
                        help=f"where to write it (default: the shared cache {DEFAULT_CACHE_DIR})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--untied", action="store_true", help="separate lm_head instead of tied embeddings")
    args = parser.parse_args()
    if args.out_dir is None:
        path = tiny_checkpoint(seed=args.seed, tie_word_embeddings=not args.untied)
    else:
        path = write_tiny_checkpoint(args.out_dir, seed=args.seed, tie_word_embeddings=not args.untied)
    print(path)


if __name__ == "__main__":
    main()
