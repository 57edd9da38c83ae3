"""Text policies: a batch of chat conversations -> completions with token ids and log-probs."""
