action NoAction(bit<1> t) { } control c() { table t { actions = { } } apply { t.apply(); } }
