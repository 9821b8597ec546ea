"""Regenerates every feature test in tests/stf/ (see feature.py)."""
import gen_expr
import gen_parse

for mod in (gen_expr, gen_parse):
    for make in mod.ALL:
        make()
