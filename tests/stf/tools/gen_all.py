"""Regenerates every feature test in tests/stf/ (see feature.py)."""
import gen_expr
import gen_parse
import gen_tables
import gen_externs

for mod in (gen_expr, gen_parse, gen_tables, gen_externs):
    for make in mod.ALL:
        make()
