"""Keyboard input for the terminal tools (`glyphjax-play`, `glyphjax-replay --tui`).

On a terminal, keys are read one at a time in cbreak mode (arrow keys arrive as escape sequences
and are decoded to "UP", "DOWN", "LEFT", "RIGHT"); from a pipe or file, input is read a line at a
time, so scripted sessions and tests drive the same code with plain text lines.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, TextIO

ARROWS = {"A": "UP", "B": "DOWN", "C": "RIGHT", "D": "LEFT"}
WASD = {"w": "UP", "a": "LEFT", "s": "DOWN", "d": "RIGHT"}
ENTER, BACKSPACE, EOF = "ENTER", "BACKSPACE", "EOF"
CLEAR_HOME = "\x1b[H\x1b[2J"  # ANSI: cursor home, clear screen


def arrow_name(text: str) -> str | None:
    """"UP"/"DOWN"/"LEFT"/"RIGHT" for an arrow-key escape sequence (CSI or SS3 form), else None."""
    if len(text) == 3 and text[0] == "\x1b" and text[1] in "[O":
        return ARROWS.get(text[2])
    return None


def direction_of(token: str) -> str | None:
    """The direction a typed token names: an arrow sequence or one of w/a/s/d (any case)."""
    if not token:
        return None
    return arrow_name(token) or WASD.get(token.lower())


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def cbreak(stream: TextIO) -> Iterator[None]:
    """Keys unbuffered and unechoed while inside (restored on exit, also on Ctrl-C)."""
    import termios
    import tty
    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key(stream: TextIO) -> str:
    """One key from a terminal in cbreak mode: a direction name, ENTER, BACKSPACE, EOF (Ctrl-D),
    or the character typed."""
    fd = stream.fileno()
    ch = os.read(fd, 1).decode("utf-8", "replace")
    if ch == "":
        return EOF
    if ch == "\x1b":
        seq = ch + os.read(fd, 2).decode("utf-8", "replace")
        return arrow_name(seq) or seq
    if ch in "\r\n":
        return ENTER
    if ch in "\x7f\x08":
        return BACKSPACE
    if ch == "\x04":
        return EOF
    return ch


def read_line_keys(stream: TextIO, out: TextIO, first: str = "") -> str | None:
    """A line typed in cbreak mode, echoed as typed (starting with `first`); None on EOF."""
    buf = first
    out.write(first)
    out.flush()
    while True:
        key = read_key(stream)
        if key == EOF:
            return None
        if key == ENTER:
            out.write("\n")
            return buf
        if key == BACKSPACE:
            if buf:
                buf = buf[:-1]
                out.write("\b \b")
        elif len(key) == 1 and key.isprintable():
            buf += key
            out.write(key)
        out.flush()


def clear_screen(out: TextIO = sys.stdout) -> None:
    out.write(CLEAR_HOME)
