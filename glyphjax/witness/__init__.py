"""WITNESS: hidden-rule path-drawing puzzles (`witness/<split>/<game>`, registered by
`glyphjax.witness.tasks`), their rule primitives, solver, level forge and harness.
See docs/suites/witness.md."""
