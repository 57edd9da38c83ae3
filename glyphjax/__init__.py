"""glyphjax: games as pure JAX programs, glyph text observations for language-model agents.

    env = glyphjax.make("classics/snake-easy")
    state = env.reset(key)
    state, transition = env.step(key, state, action)
    text = glyphjax.render_text(env.card, env.render(state))
"""

from glyphjax.core.registry import (UnknownTaskError, all_ids, make, programs, register, suite_names,
                                    task_ids)
from glyphjax.core.rollout import (AutoReset, RolloutResult, episode_key, random_legal_policy,
                                   random_policy, replay, reset_key, rollout, run_episode, stack_params,
                                   step_key)
from glyphjax.core.types import (EXTENDED, FORFEIT, NO_ACTION, NOOP, STANDARD, Env, EnvState, Frame,
                                 TaskCard, Transition)
from glyphjax.core.versus import versus
from glyphjax.render.text import TextObservation, observation_strings, observation_text, render_batch, render_text

__version__ = "0.1.0"

__all__ = [
    "AutoReset", "EXTENDED", "Env", "EnvState", "FORFEIT", "Frame", "NOOP", "NO_ACTION", "RolloutResult", "STANDARD",
    "TaskCard", "TextObservation", "Transition", "UnknownTaskError", "all_ids", "episode_key", "make",
    "observation_strings", "observation_text", "programs", "random_legal_policy", "random_policy", "register", "render_batch", "render_text", "replay", "reset_key", "rollout",
    "run_episode", "stack_params", "step_key", "suite_names", "task_ids", "versus",
]
