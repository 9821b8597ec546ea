"""Regenerates every feature test in tests/stf/ (see feature.py)."""
import gen_expr

for mod in (gen_expr,):
    for make in mod.ALL:
        make()
