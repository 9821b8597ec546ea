"""Regenerates every feature test in tests/stf/ (see feature.py) and the index
in tests/stf/README.md."""
import glob
import sys
sys.dont_write_bytecode = True  # keep generated caches out of the tree
import os

import gen_expr
import gen_parse
import gen_tables
import gen_externs
import gen_tm
import gen_lang
import gen_semantics
import gen_more
from feature import OUT

for mod in (gen_expr, gen_parse, gen_tables, gen_externs, gen_tm, gen_lang, gen_semantics, gen_more):
    for make in mod.ALL:
        make()

README_HEAD = """# tests/stf — one v1model program + STF test per feature

Each `NAME.p4` has `NAME.stf` beside it; `p4forge test tests/stf/NAME.p4 tests/stf/NAME.stf` runs one, the
STF suite (`crates/p4forge/tests/stf_suite.rs`, `make test`) runs them all. Both files are written by the
generators in `tools/` (`cd tests/stf/tools && python3 gen_all.py`, which also rewrites this index); every
expected byte is computed there in plain Python (checksums and CRCs included) — edit the generators, not
the outputs.

| test | what it checks |
|---|---|
"""
rows = []
for path in sorted(glob.glob(os.path.join(OUT, '*.p4'))):
    with open(path) as f:
        title = f.readline()[3:].strip()
    rows.append('| `%s` | %s |' % (os.path.basename(path)[:-3], title))
with open(os.path.join(OUT, 'README.md'), 'w') as f:
    f.write(README_HEAD + '\n'.join(rows) + '\n')
