"""WITNESS: hidden-rule path-drawing puzzles (`witness/<split>/<game>`), their rule primitives,
solver and level forge. See docs/suites/witness.md."""

from glyphjax.witness.tasks import register_all

register_all()
