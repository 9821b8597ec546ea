"""Regenerates every feature test in tests/stf/ (see feature.py)."""
import gen_expr
import gen_parse
import gen_tables
import gen_externs
import gen_tm

for mod in (gen_expr, gen_parse, gen_tables, gen_externs, gen_tm):
    for make in mod.ALL:
        make()
