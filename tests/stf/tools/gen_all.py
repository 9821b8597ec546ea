"""Regenerates every feature test in tests/stf/ (see feature.py)."""
import gen_expr
import gen_parse
import gen_tables

for mod in (gen_expr, gen_parse, gen_tables):
    for make in mod.ALL:
        make()
