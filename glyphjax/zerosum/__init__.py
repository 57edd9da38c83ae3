"""Two-player zero-sum games for self-play: templates, encodings, the corpus and its battery.

Importing the package registers every admitted variant of the corpus (`corpus.corpus()`), so
`glyphjax.task_ids("zerosum/*")` lists the whole corpus; `python -m glyphjax.zerosum.certify`
runs the full battery and the agreement check over it.
"""

from glyphjax.core.registry import register
from glyphjax.zerosum import corpus as _corpus

for _task_id, _factory in _corpus.corpus().items():
    register(_task_id, _factory)
