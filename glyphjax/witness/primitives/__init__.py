"""The WITNESS rule primitives, one module each (glyph, JAX check or movement rule, and a
plain-Python twin). `CHECKS` are the submission rules in the order the engine applies them; the
eliminator runs last over the others' violations."""

from glyphjax.witness.primitives import (eliminator, hexagon, hints, mapping, polyomino, squares,
                                         stars, symmetry, triangles, walls)

CHECKS = {m.NAME: m for m in (hexagon, squares, stars, triangles, polyomino, symmetry, eliminator)}
ALL = {m.NAME: m for m in (mapping, walls, hexagon, squares, stars, triangles, polyomino, symmetry,
                           eliminator, hints)}
