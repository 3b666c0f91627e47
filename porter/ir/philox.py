"""What the IR's `philox(seed, c0, c1, i)` call computes: word i of Philox-4x32 with these
constants, as Triton defines it (triton/language/random.py). The Triton front end builds such
calls (frontends/triton/random.py); emit prints them as the port's `_philox` macro with the
rounds written out (templates/runtime.py.j2). Both read the constants here."""

KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85
ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57
ROUNDS = 10
