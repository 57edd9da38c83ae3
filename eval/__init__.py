"""eval: seed evaluation, LLM evaluation, statistics, replay viewer, reports."""
