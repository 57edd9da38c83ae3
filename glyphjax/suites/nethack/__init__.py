"""NetHack itself (`nethack/full`, extended track) through the NetHack Learning Environment: a host
env (glyphjax.core.host), not a JAX task; see host.py. Needs `pip install 'glyphjax[nethack]'`."""

from __future__ import annotations

from glyphjax.suites.nethack.host import NetHackBatch, NetHackGame, make_card


class NetHackEnv:
    """The host env of nethack/full: its card and batches of episodes (not vmappable)."""

    host = True

    def __init__(self):
        self.card = make_card()  # raises the install hint when nle is missing

    def batch(self, seeds: list[int], processes: bool = True) -> NetHackBatch:
        return NetHackBatch(seeds, processes=processes)

    def replay(self, seed: int, actions: list[int]) -> tuple[list, list[float]]:
        """(text observations, rewards) of an episode replayed in this process from seed + actions."""
        batch = NetHackBatch([seed], processes=False)
        texts, rewards = [batch.observations([0])[0]], []
        for a in actions:
            out = batch.step([a])
            rewards.append(float(out["reward"][0]))
            texts.append(batch.observations([0])[0])
            if batch.done[0]:
                break
        batch.close()
        return texts, rewards


__all__ = ["NetHackBatch", "NetHackEnv", "NetHackGame"]
