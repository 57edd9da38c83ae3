"""arcade/maze.py (corridors, pellets, ghosts, tunnels, contact) and the maze games on positions
set up by hand, with golden boards and frames written from the rules in each module's docstring."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from glyphjax.core import entities
from glyphjax.suites.arcade import maze
from glyphjax.suites.arcade.mspacman import FRIGHT, HOLD
from tests.suites.arcade.test_games import grid, play, pool, start

PLUS = maze.layout(("#######",
                    "###.###",
                    "###.###",
                    "#..G..#",
                    "###.###",
                    "###P###",
                    "#######"))


def _ghost(pos, vel=(0, 0), kind=maze.HUNTING, timer=0):
    return entities.put(entities.empty(1), jnp.ones(1, bool), jnp.array([pos]), jnp.array([vel]), kind, timer)


GHOST_TURN = jax.jit(maze.ghost_turn, static_argnums=7)  # one compile per board shape, not per op


def _turn(ghosts, target, t=0, period=1, u=None, wander=0.0, lay=PLUS):
    field = jnp.asarray(lay.field)
    u = jnp.ones((ghosts.size, 2)) if u is None else jnp.asarray(u, jnp.float32)
    targets = jnp.broadcast_to(jnp.array(target, jnp.int32), (ghosts.size, 2))
    out = GHOST_TURN(u, ghosts, field, targets, jnp.int32(t), jnp.int32(period), jnp.float32(wander), lay.exit)
    return [tuple(int(x) for x in p) for p in out.pos], out


# --- layouts --------------------------------------------------------------------------------------------
def test_layout__parses_start_homes_exit_and_pellets():
    lay = maze.layout(("#####", "#o.G#", "#P. #", "#####"))
    assert lay.start == (2, 1) and lay.homes == ((1, 3),) and lay.exit is None and lay.pellets == 3
    assert maze.layout(("####", "# P#", "#=##", "#G##")).exit == (1, 1)  # above the pen door
    assert lay.field[1].tolist() == [maze.WALL, maze.POWER, maze.DOT, maze.CORRIDOR, maze.WALL]


@pytest.mark.parametrize("rows, words", [(("#P#", "#G"), "differ in length"), (("#P#", "#X#"), "unknown cells ['X']"),
                                         (("#G#", "# #"), "one start 'P'")])
def test_layout__a_malformed_maze_names_what_is_wrong(rows, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        maze.layout(rows)


def test_mirrored__each_row_is_followed_by_its_mirror_image():
    assert maze.mirrored(("#.o", "# P")) == ("#.oo.#", "# PP #")


# --- walking, eating, tunnels ----------------------------------------------------------------------------
def test_walk__walls_and_doors_block_and_side_edges_wrap():
    field = jnp.asarray(maze.layout(("# =#", "  P ", "##G#")).field)
    at = lambda pos, d: maze.walk(field, jnp.array(pos), jnp.array(d)).tolist()
    assert at((1, 2), (-1, 0)) == [1, 2]  # the door above
    assert at((1, 1), (-1, 0)) == [0, 1]
    assert at((1, 0), (0, -1)) == [1, 3]  # off the left edge: in at the right
    assert at((1, 3), (0, 1)) == [1, 0]
    assert at((0, 1), (-1, 0)) == [0, 1]  # off the top is closed


def test_eat__clears_the_cell_and_reports_a_power_pellet():
    field = jnp.asarray(maze.layout(("#o.PG#",)).field)
    f1, n1, p1 = maze.eat(field, jnp.array([0, 1]))
    f2, n2, p2 = maze.eat(f1, jnp.array([0, 2]))
    _, n3, p3 = maze.eat(f2, jnp.array([0, 2]))
    assert (int(n1), bool(p1), int(n2), bool(p2), int(n3), bool(p3)) == (1, True, 1, False, 0, False)
    assert f2.tolist() == [[maze.WALL, 0, 0, 0, 0, maze.WALL]]


# --- ghosts ----------------------------------------------------------------------------------------------
def test_ghost_turn__takes_the_junction_exit_nearest_you_and_never_reverses():
    # at the junction (3, 3) heading right; you at (5, 3): down is nearest; left would be back
    cells, out = _turn(_ghost((3, 3), (0, 1)), (5, 3))
    assert cells == [(4, 3)] and out.vel[0].tolist() == [1, 0]
    # you up-left at (1, 0): up (2, 3) is at distance 1 + 9 = 10, right (3, 4) at 4 + 16 = 20
    assert _turn(_ghost((3, 3), (0, 1)), (1, 0))[0] == [(2, 3)]


def test_ghost_turn__a_frightened_ghost_flees_at_half_speed():
    scared = _ghost((3, 3), (0, 1), kind=maze.FRIGHTENED)
    # you below at (5, 3): of up (2,3) d=9, right (3,4) d=5, down (4,3) d=1 it takes the farthest
    assert _turn(scared, (5, 3), t=0)[0] == [(2, 3)]
    assert _turn(scared, (5, 3), t=1)[0] == [(3, 3)]  # every second turn only
    assert _turn(scared, (5, 3), t=2)[0] == [(2, 3)]


def test_ghost_turn__period_holds_and_wander_picks_the_uniforms_exit():
    g = _ghost((3, 3), (0, 1))
    assert _turn(g, (5, 3), t=1, period=2)[0] == [(3, 3)]
    # wander: u0 < 0.5 takes the k-th allowed exit (UP, DOWN, RIGHT order) with k = floor(u1 * 3)
    assert _turn(g, (5, 3), u=[[0.1, 0.99]], wander=0.5)[0] == [(3, 4)]
    assert _turn(g, (5, 3), u=[[0.9, 0.99]], wander=0.5)[0] == [(4, 3)]


def test_ghost_turn__a_held_ghost_waits_then_steps_out_above_its_door():
    lay = maze.layout(("#####", "#P  #", "##=##", "##G##", "#####"))
    g = _ghost((3, 2), timer=2)
    cells, g = _turn(g, (1, 1), lay=lay)
    assert cells == [(3, 2)] and int(g.timer[0]) == 1
    cells, g = _turn(g, (1, 1), lay=lay)
    assert cells == [(1, 2)] and int(g.timer[0]) == 0


def test_ghost_turn__ghosts_use_the_tunnel():
    lay = maze.layout(("#####", "  P  ", "##G##"))
    assert _turn(_ghost((1, 4), (0, 1)), (1, 1), lay=lay)[0] == [(1, 0)]


def test_ghost_targets__scatter_spells_send_each_ghost_to_its_corner():
    ghosts = entities.empty(5)
    you = jnp.array([3, 4])
    assert maze.ghost_targets(ghosts, you, jnp.int32(0), (7, 9)).tolist() == [[0, 0], [0, 8], [6, 0], [6, 8], [0, 0]]
    assert maze.ghost_targets(ghosts, you, jnp.int32(7), (7, 9)).tolist() == [[3, 4]] * 5


def test_frighten__a_power_pellet_frightens_ghosts_out_of_the_pen_until_the_spell_ends():
    ghosts = entities.spawn_many(entities.empty(2), jnp.zeros((2, 2)), jnp.zeros((2, 2)), jnp.zeros(2),
                                 jnp.ones(2, bool), timer=jnp.array([0, 5]))
    frighten = jax.jit(maze.frighten, static_argnums=3)
    g, left = frighten(ghosts, jnp.int32(0), jnp.bool_(True), 3)
    assert g.kind.tolist() == [maze.FRIGHTENED, maze.HUNTING] and int(left) == 3
    g, left = frighten(g, left, jnp.bool_(False), 3)
    assert g.kind.tolist() == [maze.FRIGHTENED, maze.HUNTING] and int(left) == 2
    g, left = frighten(*frighten(g, left, jnp.bool_(False), 3), jnp.bool_(False), 3)
    assert g.kind.tolist() == [maze.HUNTING, maze.HUNTING] and int(left) == 0


@pytest.mark.parametrize("g0, g1, you0, you1, caught", [
    ((3, 4), (3, 3), (3, 3), (3, 4), True),  # swapped cells
    ((3, 5), (3, 4), (3, 3), (3, 4), True),  # same cell after the turn
    ((3, 2), (3, 3), (3, 3), (3, 4), False),  # one cell behind you
    ((2, 4), (3, 4), (3, 4), (3, 4), True),  # into you while you stand
])
def test_contact__same_cell_or_swap_catches_a_trailing_ghost_does_not(g0, g1, you0, you1, caught):
    before, after = _ghost(g0), _ghost(g1)
    got, eaten = maze.contact(before, after, jnp.array(you0), jnp.array(you1))
    assert bool(got) == caught and not eaten.any()
    scared = after.replace(kind=jnp.array([maze.FRIGHTENED]))
    got, eaten = maze.contact(before, scared, jnp.array(you0), jnp.array(you1))
    assert not got and eaten.tolist() == [caught]


def test_maze_policy__heads_for_the_pellet_but_not_into_a_ghost():
    lay = maze.layout(("####G####", "#.  P  .#", "#########"))
    field = jnp.asarray(lay.field)
    goals = field == maze.DOT
    you = jnp.array(lay.start)
    far = _ghost((1, 1), timer=0).replace(alive=jnp.array([False]))
    policy = jax.jit(maze.maze_policy)
    a = int(policy(jnp.zeros(2, jnp.uint32), field, you, far, goals))
    assert maze.MAZE_ACTIONS[a] in ("LEFT", "RIGHT")
    assert maze.MAZE_ACTIONS[int(policy(jnp.zeros(2, jnp.uint32), field, you, _ghost((1, 2)), goals))] == "RIGHT"


# --- Ms. Pac-Man -----------------------------------------------------------------------------------------
MP = "miniatari/mspacman"
N_MINI = 63  # pellets of the MiniAtari maze: counted by hand from the layout rows


def _ghosts(cells, kinds=None, timers=None):
    g = pool(cells, kinds=kinds)
    return g if timers is None else g.replace(timer=jnp.array(timers, jnp.int32))


def test_mspacman__eating_a_pellet_pays_1_over_n_and_the_ghosts_wait_at_home():
    s, reward, done, msg = play(MP, start(MP), "RIGHT")
    assert reward == pytest.approx(1 / N_MINI) and not done and msg == "You ate a pellet."
    assert grid(MP, s) == ["▓▓▓▓▓▓▓▓▓▓▓▓▓▓",
                           "▓◉··········◉▓",
                           "▓·▓▓·▓▓▓▓·▓▓·▓",
                           "▓············▓",
                           "▓·▓▓·▓GG▓·▓▓·▓",
                           " ····▓▓▓▓···· ",
                           "▓·▓▓·▓▓▓▓·▓▓·▓",
                           "▓····· @·····▓",
                           "▓◉·▓▓····▓▓·◉▓",
                           "▓▓▓▓▓▓▓▓▓▓▓▓▓▓"]


def test_mspacman__the_tunnel_row_wraps_you_to_the_other_side():
    s = start(MP, player=[5, 0], foes=_ghosts([(4, 6), (4, 7)], timers=[50, 50]))
    s, reward, done, _ = play(MP, s, "LEFT")
    assert s.player.tolist() == [5, 13] and reward == 0 and not done


def test_mspacman__a_hunting_ghost_meeting_you_is_death():
    s = start(MP, player=[7, 3], t=8, foes=_ghosts([(7, 1), (4, 7)], timers=[0, 50]))  # t = 8: chasing
    s = s.replace(foes=s.foes.replace(vel=jnp.array([[0, 1], [0, 0]], jnp.int32)))
    s, reward, done, msg = play(MP, s, "LEFT")  # you (7,3)->(7,2), the ghost (7,1)->(7,2)
    assert done and reward == pytest.approx(1 / N_MINI - 1) and msg == "A ghost caught you. Game over."


def test_mspacman__a_power_pellet_frightens_and_a_frightened_ghost_goes_home():
    # t = 2: ghosts are due (t % 2 == 0) but frightened ones only on every second such turn
    s = start(MP, player=[1, 2], t=2, foes=_ghosts([(2, 1), (4, 7)], timers=[0, 50]))
    s, reward, done, msg = play(MP, s, "LEFT")  # onto the power pellet at (1, 1)
    assert reward == pytest.approx(1 / N_MINI) and msg.startswith("You ate a power pellet")
    assert s.foes.kind.tolist() == [maze.FRIGHTENED, maze.HUNTING] and int(s.phase) == FRIGHT
    assert grid(MP, s)[1:5] == ["▓@··········◉▓", "▓g▓▓·▓▓▓▓·▓▓·▓", "▓············▓", "▓·▓▓·▓ G▓·▓▓·▓"]
    s, reward, done, msg = play(MP, s, "DOWN")  # t = 3: onto the ghost at (2, 1), which is not due
    assert not done and msg == "You sent a frightened ghost home."
    assert s.foes.pos[0].tolist() == [4, 6] and int(s.foes.timer[0]) == HOLD
    assert int(s.foes.kind[0]) == maze.HUNTING


def test_mspacman__the_last_pellet_wins():
    field = np.asarray(start(MP).field).copy()
    field[np.isin(field, (maze.DOT, maze.POWER))] = maze.CORRIDOR
    field[7, 7] = maze.DOT
    s = start(MP, field=field, score=N_MINI - 1, foes=_ghosts([(4, 6), (4, 7)], timers=[50, 50]))
    s, reward, done, msg = play(MP, s, "RIGHT")
    assert done and reward == pytest.approx(1 / N_MINI) and msg == "You reached the target. You win!"


# --- beams -----------------------------------------------------------------------------------------------
def test_ray__covers_reach_cells_and_stops_at_the_first_wall_or_edge():
    field = jnp.asarray(maze.layout(("P  #  G",)).field)
    cells = lambda start, d, reach: np.argwhere(np.asarray(maze.ray(field, jnp.array(start), jnp.array(d), reach))).tolist()
    assert cells((0, 0), (0, 1), 5) == [[0, 1], [0, 2]]  # the wall at column 3 stops it
    assert cells((0, 4), (0, 1), 1) == [[0, 5]]
    assert cells((0, 4), (0, -1), 4) == []
    assert cells((0, 5), (0, 1), 4) == [[0, 6]]  # the edge stops it
    assert cells((0, 1), (0, 0), 4) == []  # no heading, no beam


def test_first_on__only_the_nearest_entity_on_the_cells():
    g = pool([(0, 5), (0, 2), (0, 9)])
    cells = jnp.zeros((1, 10), bool).at[0, 1:6].set(True)
    assert maze.first_on(g, cells, jnp.array([0, 0])).tolist() == [False, True, False]
    assert not maze.first_on(g, jnp.zeros((1, 10), bool), jnp.array([0, 0])).any()


# --- Alien ------------------------------------------------------------------------------------------------
AL = "miniatari/alien"


def _aliens(cells, timers):
    return _ghosts(cells, timers=timers)


def test_alien__the_flame_destroys_the_first_alien_the_way_you_face():
    # t = 8: no alien is due (t % 3 != 0); aliens 2 and 3 wait at home
    s = start(AL, player=[7, 2], heading=[0, 1], t=8,
              foes=_aliens([(7, 5), (7, 6), (4, 6), (4, 8)], [0, 0, 50, 50]))
    s, reward, done, msg = play(AL, s, "FIRE")
    assert reward == pytest.approx(1 / 4) and not done and msg == "Your flame destroyed an alien."
    assert s.foes.pos[0].tolist() == [4, 3] and int(s.foes.timer[0]) == 10 - 1  # held 10, this turn counts
    g = grid(AL, s)
    assert g[4] == "▓ ▓Ω  Ω Ω▓ ▓" and g[7] == "▓ ⇒   Ω    ▓"


def test_alien__walls_stop_the_flame_and_a_move_into_a_wall_turns_you():
    s = start(AL, player=[3, 3], heading=[1, 0], t=8, foes=_aliens([(7, 3), (4, 5), (4, 6), (4, 8)], [0, 50, 50, 50]))
    s, reward, _, _ = play(AL, s, "FIRE")  # (4,3), (5,3) open, (6,3) a wall: the alien at (7,3) is safe
    assert reward == 0 and s.foes.pos[0].tolist() == [7, 3]
    s = start(AL, player=[7, 1], t=8, foes=_aliens([(4, 3), (4, 5), (4, 6), (4, 8)], [50] * 4))
    s, _, _, _ = play(AL, s, "LEFT")
    assert s.player.tolist() == [7, 1] and s.heading.tolist() == [0, -1] and grid(AL, s)[7] == "▓⇐         ▓"


def test_alien__an_egg_pays_a_pulsar_frightens_and_a_fleeing_alien_met_is_destroyed():
    field = np.asarray(start(AL).field).copy()
    field[7, 3] = maze.DOT
    s = start(AL, field=field, player=[7, 2], t=8, foes=_aliens([(4, 3), (4, 5), (4, 6), (4, 8)], [50] * 4))
    s, reward, _, msg = play(AL, s, "RIGHT")
    assert reward == pytest.approx(1 / 4) and msg == "You crushed an egg." and grid(AL, s)[7] == "▓  ⇒       ▓"
    # t = 3: due, but fleeing aliens move only every second due turn
    s = start(AL, player=[1, 2], t=3, foes=_aliens([(2, 1), (4, 5), (4, 6), (4, 8)], [0, 50, 50, 50]))
    s, reward, _, msg = play(AL, s, "LEFT")
    assert reward == 0 and msg == "You took a pulsar: the aliens flee." and grid(AL, s)[2] == "▓ω▓▓ ▓▓ ▓▓ ▓"
    s, reward, done, msg = play(AL, s, "DOWN")  # t = 4: not due; you step onto it
    assert reward == pytest.approx(1 / 4) and not done and msg == "You destroyed a fleeing alien."


def test_alien__an_alien_stepping_onto_you_kills_you():
    # t = 9: due, past the scatter spell: the alien at (7, 4) steps onto you at (7, 3)
    s = start(AL, player=[7, 3], t=9, foes=_aliens([(7, 4), (4, 5), (4, 6), (4, 8)], [0, 50, 50, 50]))
    s, reward, done, msg = play(AL, s, "NOOP")
    assert done and reward == -1 and msg == "An alien caught you. Game over."


# --- Amidar -----------------------------------------------------------------------------------------------
AM = "miniatari/amidar"  # track rows 1, 4, 8 and columns 1, 4, 7, 10: 2 x 3 boxes


def test_amidar__painting_the_last_track_cell_around_a_box_fills_it():
    field = np.asarray(start(AM).field).copy()
    field[1, 1:5] = field[4, 1:5] = field[1:5, 1] = field[1:5, 4] = maze.CORRIDOR  # box 0's track painted
    field[1, 2] = maze.DOT  # but one cell
    s = start(AM, field=field, player=[1, 3], t=1, foes=pool([(8, 1), (8, 10)]))  # t = 1: warriors not due
    s, reward, done, msg = play(AM, s, "LEFT")
    assert reward == pytest.approx(1 / 6) and not done and msg == "A box filled in."
    assert grid(AM, s)[:5] == [" " * 12, " ▪@▪▪∙∙∙∙∙∙ ", " ▪▒▒▪  ∙  ∙ ", " ▪▒▒▪  ∙  ∙ ", " ▪▪▪▪∙∙∙∙∙∙ "]


def test_amidar__a_track_cell_paints_for_nothing_and_box_insides_are_closed():
    s = start(AM, t=1, foes=pool([(1, 1), (1, 10)]))
    s, reward, _, msg = play(AM, s, "UP")  # from the start (8, 7) up the column-7 track
    assert reward == 0 and msg == "You painted a track cell." and s.player.tolist() == [7, 7]
    assert grid(AM, s)[7:9] == [" ∙  ∙  @  ∙ ", " ∙∙∙∙∙∙▪∙∙∙ "]
    s = start(AM, player=[8, 5], t=1, foes=pool([(1, 1), (1, 10)]))
    assert play(AM, s, "UP")[0].player.tolist() == [8, 5]


def test_amidar__a_warrior_meeting_you_kills_you():
    s = start(AM, t=9, foes=pool([(8, 9), (1, 1)], vel=(0, -1)))  # t = 9: due, chasing
    s, reward, done, msg = play(AM, s, "RIGHT")  # you (8,7)->(8,8); the warrior's only way is left
    assert done and reward == -1 and msg == "A warrior caught you. Game over."


# --- Bank Heist -------------------------------------------------------------------------------------------
BH = "miniatari/bankheist"


def _city(banks):
    field = np.asarray(start(BH).field).copy()
    field[field == maze.DOT] = maze.CORRIDOR
    for r, c in banks:
        field[r, c] = maze.DOT
    return field


def test_bankheist__a_robbery_pays_opens_a_new_bank_and_calls_a_police_car_at_a_gate():
    s = start(BH, field=_city([(7, 7), (3, 3)]), player=[7, 6], t=1, foes=pool([(1, 1)], n=3))  # t = 1: police wait
    s, reward, done, msg = play(BH, s, "RIGHT")
    assert reward == pytest.approx(1 / 5) and not done and msg == "You robbed a bank."
    field = np.asarray(s.field)
    assert field[7, 7] == maze.CORRIDOR and field[3, 3] == maze.DOT and (field == maze.DOT).sum() == 2
    assert s.foes.alive.tolist() == [True, True, False] and s.foes.pos[1].tolist() == [1, 12]  # the second gate


def test_bankheist__a_police_car_meeting_you_is_the_end_and_the_fifth_bank_wins():
    police = pool([(7, 8)], vel=(0, -1), n=3)
    s = start(BH, field=_city([(3, 3)]), player=[7, 6], t=8, foes=police)  # t = 8: due, chasing
    s, reward, done, msg = play(BH, s, "RIGHT")  # you (7,6)->(7,7), the car (7,8)->(7,7)
    assert done and reward == -1 and msg == "The police caught you. Game over."
    s = start(BH, field=_city([(7, 7)]), player=[7, 6], t=1, score=4, foes=pool([(1, 1)], n=3))
    s, reward, done, msg = play(BH, s, "RIGHT")
    assert done and reward == pytest.approx(1 / 5) and msg == "You reached the target. You win!"
