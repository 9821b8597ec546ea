"""Regenerates every feature test in tests/stf/ (see feature.py)."""
import gen_expr
import gen_parse
import gen_tables
import gen_externs
import gen_tm
import gen_lang
import gen_semantics
import gen_more

for mod in (gen_expr, gen_parse, gen_tables, gen_externs, gen_tm, gen_lang, gen_semantics, gen_more):
    for make in mod.ALL:
        make()
