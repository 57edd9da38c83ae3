"""Two-player zero-sum games for self-play: templates, encodings, the corpus and its battery.

Importing the package registers the core of the corpus: per family its base game, its first rule
variant and its first encoding variant (`glyphjax.task_ids("zerosum/*")`). `register_corpus()`
registers every declared variant as well (`corpus.corpus()` lists them); the registered core is
what the conformance suite runs over every test session, the full corpus is certified by
`python -m glyphjax.zerosum.certify`.
"""

from glyphjax.core.registry import all_ids, register
from glyphjax.zerosum import corpus as _corpus


def register_corpus() -> int:
    """Register every declared variant not registered yet; return how many were added."""
    have = set(all_ids())
    added = 0
    for task_id, factory in _corpus.corpus().items():
        if task_id not in have:
            register(task_id, factory)
            added += 1
    return added


for _task_id, _factory in _corpus.corpus().items():
    if _task_id in _corpus.core_ids():
        register(_task_id, _factory)
