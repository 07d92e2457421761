"""The PettingZoo and Gymnasium environments, under their own checkers."""

import random

import pytest

np = pytest.importorskip("numpy")
pettingzoo = pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

import ultimo  # noqa: E402
from ultimo.gym import UltimoEnv  # noqa: E402
from ultimo.pettingzoo import env as make_env  # noqa: E402


def test_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(make_env(), num_cycles=1000, verbose_progress=False)


def test_pettingzoo_seed_and_render():
    from pettingzoo.test import seed_test

    seed_test(make_env, num_cycles=100)
    env = make_env(render_mode="ansi")
    env.reset()
    assert "a b c" in env.render()


def test_pettingzoo_random_games_end_with_the_rules_result():
    env = make_env()
    rng = random.Random(5)
    for _ in range(20):
        env.reset()
        final = {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                final[agent] = reward
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.sum() == len(env.unwrapped.board.legal_moves())
            env.step(rng.choice(np.flatnonzero(mask).tolist()))
        board = env.unwrapped.board
        winner = board.winner()
        expected = {"x": 0, "o": 0} if winner is None else {winner: 1, ("o" if winner == "x" else "x"): -1}
        assert final == expected


def test_pettingzoo_refuses_illegal_actions():
    env = make_env()
    env.reset()
    env.step(40)  # e5
    with pytest.raises(ValueError):
        env.step(0)  # a9: not on the centre board


def test_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    check_env(UltimoEnv(play_as="o", nodes=50), skip_render_check=True)


def test_gymnasium_games_against_the_engine():
    env = UltimoEnv(play_as="x", nodes=200)
    obs, info = env.reset(seed=3)
    assert obs.shape == (ultimo.PLANES, 9, 9) and info["action_mask"].sum() == 81
    rng = random.Random(3)
    done = False
    total = 0.0
    while not done:
        action = rng.choice(np.flatnonzero(env.action_masks()).tolist())
        obs, reward, done, truncated, info = env.step(action)
        total += reward
        assert not truncated and not info["illegal"]
    # A random player does not beat the engine.
    assert total <= 0
    # An illegal action loses at once.
    env = UltimoEnv(play_as="o", nodes=50)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError):
        env.step(0)
