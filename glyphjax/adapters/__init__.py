"""Adapters that expose glyphjax tasks through other libraries' interfaces (Gymnasium,
verifiers). Each imports its library lazily: glyphjax itself never needs them."""
