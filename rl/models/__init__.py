"""Language models in JAX: the Qwen3 NNX implementation and Hugging Face checkpoint IO."""
