"""rl: language-model policies, rollout engine, advantages, losses, trainer, checkpoints."""
