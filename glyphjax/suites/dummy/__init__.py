"""Dummy tasks for smoke tests and learnability checks (`dummy/*`)."""

from glyphjax.suites.dummy import arrow  # noqa: F401  (registers tasks)
