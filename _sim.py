import sys, jax, jax.numpy as jnp, glyphjax
tid = sys.argv[1]; n = int(sys.argv[2]); seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
env = glyphjax.make(tid)
step = jax.jit(env.step); pol = jax.jit(env.scripted_policy)
s = env.reset(glyphjax.reset_key(seed)); p = env.default_params()
for t in range(n):
    a = pol(jax.random.PRNGKey(t), s, p)
    s, tr = step(glyphjax.step_key(seed, t), s, a, p)
    if float(tr.reward) != 0 or bool(tr.terminated): print(t, float(tr.reward), int(s.score), int(s.opp_score))
    if bool(tr.terminated): break
    if t < int(sys.argv[4] if len(sys.argv) > 4 else 0): print(t, int(a), s.player.tolist(), s.opponent.tolist(), s.ball.tolist(), s.ball_vel.tolist())
