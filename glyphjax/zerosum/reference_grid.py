"""Independent plain-Python implementation of the grid-placement template, from its written spec.

It imports nothing from the JAX kernel (the agreement test compares the two): the rules come in as
plain values (the fields of a grid descriptor). Spec, as the template's docstring states it: seats
alternate on an n x n board, seat 0 first; a move takes a cell `r * n + c` that is on the board,
empty, allowed on the first move, and (with gravity) on the bottom row or above a taken or blocked
cell; after a move, k marks in a row (the mover's own, or anyone's when marks are shared) along an
enabled direction, optionally wrapping, wins for the mover (loses under misère); otherwise owning the
four corners of an s x s square loses; otherwise the game is drawn when the next seat has no legal
cell. An illegal move or no move (a negative action) forfeits. Rewards are (seat 0, seat 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))


@dataclass
class RefState:
    board: list[int]  # 0 empty, 1 seat 0, 2 seat 1 (canonical cells)
    mover: int = 0
    ply: int = 0
    done: bool = False
    rewards: tuple[float, float] = (0.0, 0.0)
    history: list[int] = field(default_factory=list)


class GridReference:
    """The grid template over plain lists; one instance per variant descriptor."""

    def __init__(self, n: int, k: int, dirs, torus: bool, gravity: bool, misere: bool, shared: bool,
                 square: int, blocked, first_forbidden):
        self.n, self.k, self.dirs = n, k, list(dirs)
        self.torus, self.gravity, self.misere, self.shared = torus, gravity, misere, shared
        self.square, self.blocked, self.first = square, set(blocked), set(first_forbidden)
        self.lines = self._all_lines()

    def initial(self, chance=None) -> RefState:
        """The empty board (grid games have no chance outcomes)."""
        return RefState(board=[0] * (self.n * self.n))

    def legal(self, s: RefState) -> list[bool]:
        if s.done:
            return [False] * (self.n * self.n)
        return [self._may_take(s, cell) for cell in range(self.n * self.n)]

    def _may_take(self, s: RefState, cell: int) -> bool:
        if cell in self.blocked or s.board[cell] != 0 or (s.ply == 0 and cell in self.first):
            return False
        if not self.gravity:
            return True
        r, c = divmod(cell, self.n)
        below = (r + 1) * self.n + c
        return r == self.n - 1 or s.board[below] != 0 or below in self.blocked

    def _all_lines(self) -> list[tuple[int, ...]]:
        """Every k-cell line along an enabled direction (wrapping on a torus)."""
        n, lines = self.n, []
        for d, (dr, dc) in enumerate(STEPS):
            if not self.dirs[d]:
                continue
            for r in range(n):
                for c in range(n):
                    cells = []
                    for j in range(self.k):
                        rr, cc = r + j * dr, c + j * dc
                        if self.torus:
                            rr, cc = rr % n, cc % n
                        elif not (0 <= rr < n and 0 <= cc < n):
                            break
                        cells.append(rr * n + cc)
                    if len(cells) == self.k:
                        lines.append(tuple(cells))
        return lines

    def _line(self, owned: set[int]) -> bool:
        return any(all(x in owned for x in line) for line in self.lines)

    def _square(self, owned: set[int]) -> bool:
        if not self.square:
            return False
        n, d = self.n, self.square - 1
        return any({r * n + c, r * n + c + d, (r + d) * n + c, (r + d) * n + c + d} <= owned
                   for r in range(n - d) for c in range(n - d))

    def step(self, s: RefState, action: int) -> RefState:
        """The state after the mover plays `action` (a finished game stays as it is)."""
        if s.done:
            return s
        mover = s.mover
        win = (1.0, -1.0) if mover == 0 else (-1.0, 1.0)
        if action < 0 or action >= self.n * self.n or not self._may_take(s, action):
            return RefState(s.board, 1 - mover, s.ply + 1, True, (-win[0], -win[1]), s.history + [action])
        board = list(s.board)
        board[action] = mover + 1
        mine = {i for i, v in enumerate(board) if v == mover + 1}
        marks = {i for i, v in enumerate(board) if v != 0} if self.shared else mine
        nxt = RefState(board, 1 - mover, s.ply + 1, False, (0.0, 0.0), s.history + [action])
        if self._line(marks):
            nxt.done, nxt.rewards = True, ((-win[0], -win[1]) if self.misere else win)
        elif self._square(mine):
            nxt.done, nxt.rewards = True, (-win[0], -win[1])
        elif not any(self.legal(nxt)):
            nxt.done = True
        return nxt

    def view(self, s: RefState, seat: int) -> list[int]:
        """The board as `seat` sees it: 0 empty, 1 own mark, 2 other mark, 3 blocked."""
        return [3 if i in self.blocked else 0 if v == 0 else 1 if v == seat + 1 else 2
                for i, v in enumerate(s.board)]
