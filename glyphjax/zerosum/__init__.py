"""Two-player zero-sum games for self-play: templates, encodings, the corpus and its battery.

Importing the package registers the corpus (`glyphjax.task_ids("zerosum/*")`).
"""

from glyphjax.core.registry import register
from glyphjax.zerosum import corpus as _corpus

for _task_id, _factory in _corpus.corpus().items():
    register(_task_id, _factory)
