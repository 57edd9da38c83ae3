"""Advantage estimators against hand-computed values (formulas.md §1, §2)."""

import numpy as np
import pytest

from rl.advantages import (Crab, EpisodeBatch, GroupMean, GroupStd, LeaveOneOut, RAE, broadcast_to_samples,
                           make_estimator)


def test_group_mean__subtracts_each_groups_mean_without_std():
    batch = EpisodeBatch(returns=[1.0, 0.0, 0.2, 0.4, 0.9], group=[0, 0, 1, 1, 1])
    np.testing.assert_allclose(GroupMean()(batch), [0.5, -0.5, -0.3, -0.1, 0.4], atol=1e-12)


def test_group_mean__constant_group_gives_zero_advantage():
    batch = EpisodeBatch(returns=[0.7] * 4, group=[3] * 4)
    np.testing.assert_allclose(GroupMean()(batch), 0.0, atol=1e-12)


def test_group_std__divides_by_population_std():
    batch = EpisodeBatch(returns=[1.0, 0.0, 1.0, 1.0], group=[0, 0, 1, 1])
    np.testing.assert_allclose(GroupStd(eps=0.0 + 1e-12)(batch)[:2], [1.0, -1.0], atol=1e-6)
    np.testing.assert_allclose(GroupStd()(batch)[2:], [0.0, 0.0], atol=1e-12)


def test_leave_one_out__uses_the_other_members_and_zero_for_singletons():
    batch = EpisodeBatch(returns=[1.0, 0.0, 0.5, 0.8], group=[0, 0, 0, 1])
    np.testing.assert_allclose(LeaveOneOut()(batch), [0.75, -0.75, 0.0, 0.0], atol=1e-12)


def test_rae__baseline_is_an_ema_from_zero_of_earlier_episodes_per_variant_and_seat():
    """gamesmith.md §5.3: b <- 0.95 b + 0.05 R per (variant, seat), from 0, advantage first."""
    rae = RAE(decay=0.95)
    d = [{"task": "a"}] * 3
    first = rae(EpisodeBatch([1.0, 0.0, -1.0], [0, 0, 0], descriptor=d, seat=[0, 0, 1]))
    np.testing.assert_allclose(first, [1.0, 0.0, -1.0])  # nothing seen yet: baseline 0
    # seat 0 saw 1.0 then 0.0: b = 0.95 * (0.05 * 1.0) + 0.05 * 0.0 = 0.0475; seat 1: 0.05 * -1 = -0.05
    second = rae(EpisodeBatch([1.0, 0.0], [0, 0], descriptor=d[:2], seat=[0, 1]))
    np.testing.assert_allclose(second, [1.0 - 0.0475, 0.0 + 0.05])
    # seat 0 after 1.0 more: 0.95 * 0.0475 + 0.05 = 0.095125
    third = rae(EpisodeBatch([0.0], [0], descriptor=d[:1], seat=[0]))
    np.testing.assert_allclose(third, [-0.095125])


def test_rae__batch_members_do_not_see_each_other():
    rae = RAE(decay=0.5)
    adv = rae(EpisodeBatch([1.0, 1.0], [0, 0], descriptor=[{"task": "a"}] * 2))
    np.testing.assert_allclose(adv, [1.0, 1.0])  # both against the pre-batch value 0


def test_rae__state_dict_round_trip_keeps_baselines():
    rae = RAE()
    rae(EpisodeBatch([1.0, 0.0], [0, 0], descriptor=[{"task": "a"}] * 2))
    other = RAE()
    other.load_state_dict(rae.state_dict())
    # b = 0.95 * 0.05 + 0.05 * 0 = 0.0475
    np.testing.assert_allclose(other(EpisodeBatch([1.0], [0], descriptor=[{"task": "a"}])), [1 - 0.0475])


def test_crab__shrinks_leave_one_out_mean_towards_prior_with_kappa_4():
    crab = Crab(kappa=4.0)
    d = [{"task": "a"}] * 3
    # batch 1: prior 0; K' = 2, w = 2/6; LOO means 0.25, 0.75, 0.5
    adv = crab(EpisodeBatch([1.0, 0.0, 0.5], [0, 0, 0], descriptor=d))
    np.testing.assert_allclose(adv, [1 - 0.25 / 3, 0 - 0.75 / 3, 0.5 - 0.5 / 3], atol=1e-12)
    # batch 2: prior refitted on batch 1 = its mean 0.5; K' = 1, w = 1/5
    adv = crab(EpisodeBatch([0.0, 1.0], [0, 0], descriptor=d[:2]))
    np.testing.assert_allclose(adv, [0 - (0.2 * 1 + 0.8 * 0.5), 1 - (0.2 * 0 + 0.8 * 0.5)], atol=1e-12)


def test_crab__group_of_one_reduces_to_ridge_prior_over_one_hot_fields():
    crab = Crab(kappa=4.0, l2=1.0)
    d = [{"task": "a"}, {"task": "a"}, {"task": "b"}, {"task": "b"}]
    crab(EpisodeBatch([1.0, 1.0, 0.0, 0.0], [0, 0, 1, 1], descriptor=d))
    # ridge, 2 episodes per variant, l2 = 1: variant effect shrunk by n/(n+l2) -> m = 0.5 +- 1/3
    adv = crab(EpisodeBatch([1.0, 1.0, 1.0], [0, 1, 2], descriptor=[{"task": "a"}, {"task": "b"}, {"task": "c"}]))
    np.testing.assert_allclose(adv, [1 - 5 / 6, 1 - 1 / 6, 1 - 0.5], atol=1e-9)


def test_crab__adaptive_kappa_is_sigma2_over_tau2_with_one_batch_lag():
    crab = Crab(kappa="adaptive")
    d = [{"task": "a"}] * 4
    crab(EpisodeBatch([1.0, 0.0, 1.0, 0.0], [0] * 4, descriptor=d))
    assert crab.last_kappa == 4.0  # no statistics before the first batch
    # batch 1: sigma2 = 1/3 (pooled sample variance), tau2 = (0.5 - 0)^2 - (1/3)/4 = 1/6 -> kappa 2
    crab(EpisodeBatch([1.0, 0.0], [0, 0], descriptor=d[:2]))
    assert crab.last_kappa == pytest.approx(2.0)


def test_crab__baseline_does_not_depend_on_own_return():
    crab = Crab(kappa=4.0)
    d = [{"task": "a"}] * 3
    a1 = crab(EpisodeBatch([1.0, 0.0, 0.5], [0] * 3, descriptor=d))
    crab2 = Crab(kappa=4.0)
    a2 = crab2(EpisodeBatch([-1.0, 0.0, 0.5], [0] * 3, descriptor=d))
    # changing R_0 by -2 changes A_0 by exactly -2 (its baseline is untouched)
    assert a2[0] - a1[0] == pytest.approx(-2.0)


def test_broadcast_to_samples__each_turn_gets_its_episodes_scalar():
    np.testing.assert_allclose(broadcast_to_samples(np.array([0.5, -0.5]), [0, 0, 1, 0]), [0.5, 0.5, -0.5, 0.5])


def test_make_estimator__unknown_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match="group_mean"):
        make_estimator("grpo-ish")
