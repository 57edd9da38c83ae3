"""Action parsing: the last complete `<action>NAME</action>` tag wins.

Names match case-insensitively and ignore surrounding whitespace (and `-`/space vs `_`). A failed
parse never raises and never picks a default action: it returns `NO_ACTION` with the reason, so the
turn is consumed as a no-op and counted.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from glyphjax.core.types import NO_ACTION

OK = "ok"
NO_TAG = "no_tag"
UNKNOWN_ACTION = "unknown_action"
TRUNCATED = "truncated"
EMPTY = "empty"
STATUSES = (OK, NO_TAG, UNKNOWN_ACTION, TRUNCATED, EMPTY)

_TAG = re.compile(r"<action>(.*?)</action>", re.IGNORECASE | re.DOTALL)


@dataclasses.dataclass(frozen=True)
class ParseResult:
    action: int  # index into card.actions, or NO_ACTION
    status: str  # one of STATUSES
    name: str | None = None  # the text inside the winning tag, if any

    @property
    def ok(self) -> bool:
        return self.status == OK


def normalise_name(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip()).upper()


def parse_action(text: str | None, actions: Sequence[str], truncated: bool = False) -> ParseResult:
    """Parse a completion. `truncated` says the sampler stopped at its token limit.

    Classification: empty text -> EMPTY; a complete tag naming a valid action -> OK (even if the
    text was truncated after it); last tag with an unknown name -> UNKNOWN_ACTION; no complete tag
    -> TRUNCATED if the output was cut by the token limit, else NO_TAG.
    """
    if text is None or not text.strip():
        return ParseResult(NO_ACTION, TRUNCATED if truncated else EMPTY)
    tags = _TAG.findall(text)
    if not tags:
        return ParseResult(NO_ACTION, TRUNCATED if truncated else NO_TAG)
    raw = tags[-1]
    name = normalise_name(raw)
    lookup = {a.upper(): i for i, a in enumerate(actions)}
    if name in lookup:
        return ParseResult(lookup[name], OK, raw)
    return ParseResult(NO_ACTION, UNKNOWN_ACTION, raw)
