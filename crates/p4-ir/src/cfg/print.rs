//! Deterministic text form of control graphs and parser def-use summaries (snapshot tests,
//! `p4forge compile --emit cfg`). Locations print as P4 paths (`hdr.ipv4.ttl`, `hdr.ipv4.$valid`,
//! `hdr.vlan[1].vid`, `hdr.vlan.$nextIndex`), extern state as `extern <instance name>`; a node's
//! must-writes print as `w:`, the locations it only may write as `w?:`; expressions print as in
//! [`crate::printer`].

use super::*;
use crate::printer::expr_to_string;
use std::fmt::Write;

/// Renders a location of the frame `vars` as a P4 path.
pub fn location_to_string(program: &Program, vars: &[Var], l: &Location) -> String {
    if let Some(e) = l.as_extern() {
        return format!("extern {}", program.externs.get(e.index()).map_or_else(|| format!("<extern#{}>", e.0), |x| x.name.clone()));
    }
    let Some(v) = vars.get(l.var.index()) else { return format!("$v{}", l.var.0) };
    let mut s = v.name.clone();
    let mut ty = Some(v.ty.clone());
    for &i in &l.path {
        if i == VALID || i == NEXT_INDEX {
            s.push_str(if i == VALID { ".$valid" } else { ".$nextIndex" });
            ty = None;
            continue;
        }
        ty = match ty {
            Some(Type::Named(t)) => match program.types.get(t.index()).and_then(|d| d.fields().get(i as usize)) {
                Some(f) => {
                    let _ = write!(s, ".{}", f.name);
                    Some(f.ty.clone())
                }
                None => {
                    let _ = write!(s, ".${i}");
                    None
                }
            },
            Some(Type::Stack(elem, _)) => {
                let _ = write!(s, "[{i}]");
                Some(*elem)
            }
            Some(Type::Tuple(ts)) => {
                let _ = write!(s, "[{i}]");
                ts.get(i as usize).cloned()
            }
            _ => {
                let _ = write!(s, ".${i}");
                None
            }
        };
    }
    s
}

fn locations(program: &Program, vars: &[Var], ls: &BTreeSet<Location>) -> String {
    let v: Vec<String> = ls.iter().map(|l| location_to_string(program, vars, l)).collect();
    v.join(", ")
}

/// The `w:` line (must-writes) and the `w?:` line (locations only possibly written).
fn write_sets(out: &mut String, indent: &str, program: &Program, vars: &[Var], fx: &Effects) {
    if !fx.must_writes.is_empty() {
        let _ = writeln!(out, "{indent}w: {}", locations(program, vars, &fx.must_writes));
    }
    let may = fx.may_only();
    if !may.is_empty() {
        let _ = writeln!(out, "{indent}w?: {}", locations(program, vars, &may));
    }
}

fn bb(b: BlockId) -> String {
    format!("bb{}", b.0)
}

/// Prints `graph` (built from `program`): blocks in order with their nodes, each node's reads (`r:`)
/// and writes (`w:`), the terminator (with its reads), then the table-apply dependencies.
pub fn print_control_graph(program: &Program, graph: &ControlGraph) -> String {
    let Some(control) = program.controls.get(graph.control.index()) else { return format!("control <#{}> (unknown)\n", graph.control.0) };
    let vars = control.block.vars.as_slice();
    let ex = |e: &Expr| expr_to_string(program, vars, e);
    let table = |t: TableId| program.tables.get(t.index()).map(|t| t.name.clone()).unwrap_or_else(|| format!("<table#{}>", t.0));
    let action = |a: ActionId| program.actions.get(a.index()).map(|a| a.name.clone()).unwrap_or_else(|| format!("<action#{}>", a.0));
    let call = |c: &Call| ex(&Expr::new(Type::Void, ExprKind::Call(Box::new(c.clone())), c.span));
    let mut out = String::new();
    let _ = writeln!(out, "control {} ({} blocks, {})", control.block.name, graph.blocks.len(), if graph.is_dag { "dag" } else { "cyclic" });
    let preds = graph.predecessors();
    for (i, b) in graph.blocks.iter().enumerate() {
        let from: Vec<String> = preds.get(i).map(|p| p.iter().map(|x| bb(*x)).collect()).unwrap_or_default();
        let _ = writeln!(out, "  {}:{}", bb(BlockId(i as u32)), if from.is_empty() { String::new() } else { format!(" <- {}", from.join(", ")) });
        for &n in &b.nodes {
            let Some(node) = graph.node(n) else { continue };
            let text = match &node.kind {
                OpKind::Init { var, init: Some(e) } => format!("init {} = {}", location_to_string(program, vars, &Location { var: *var, path: vec![] }), ex(e)),
                OpKind::Init { var, init: None } => format!("init {}", location_to_string(program, vars, &Location { var: *var, path: vec![] })),
                OpKind::Assign { lhs, rhs } => format!("{} = {}", ex(lhs), ex(rhs)),
                OpKind::ApplyTable(t) => format!("apply {}", table(*t)),
                OpKind::ActionCall(c) => format!("action {}", call(c)),
                OpKind::FunctionCall(c) => format!("function {}", call(c)),
                OpKind::ExternCall(c) => format!("extern {}", call(c)),
                OpKind::ApplyBlock { block, .. } => {
                    let name = match block {
                        BlockRef::Parser(p) => program.parsers.get(p.index()).map(|p| p.block.name.clone()),
                        BlockRef::Control(c) => program.controls.get(c.index()).map(|c| c.block.name.clone()),
                    };
                    format!("apply block {}", name.unwrap_or_else(|| "<block>".into()))
                }
            };
            let _ = writeln!(out, "    n{}: {text}", n.0);
            if !node.reads().is_empty() {
                let _ = writeln!(out, "        r: {}", locations(program, vars, node.reads()));
            }
            write_sets(&mut out, "        ", program, vars, &node.effects);
        }
        let term = match &b.terminator {
            Terminator::Goto(t) => format!("goto {}", bb(*t)),
            Terminator::Branch { cond, then, otherwise } => format!("branch {} ? {} : {}", ex(cond), bb(*then), bb(*otherwise)),
            Terminator::SwitchAction { table: t, cases, default } => {
                let arms: Vec<String> = cases.iter().map(|(a, b)| format!("{}: {}", action(*a), bb(*b))).collect();
                format!("switch {}.action_run {{ {}{}default: {} }}", table(*t), arms.join(", "), if arms.is_empty() { "" } else { ", " }, bb(*default))
            }
            Terminator::SwitchValue { expr, cases, default } => {
                let arms: Vec<String> = cases.iter().map(|(v, b)| format!("{}: {}", ex(&Expr::constant(v.clone(), Type::Void, expr.span)), bb(*b))).collect();
                format!("switch {} {{ {}{}default: {} }}", ex(expr), arms.join(", "), if arms.is_empty() { "" } else { ", " }, bb(*default))
            }
            Terminator::Exit => "exit".into(),
            Terminator::Return => "return".into(),
        };
        let _ = writeln!(out, "    -> {term}");
        if !b.terminator_reads.is_empty() {
            let _ = writeln!(out, "        r: {}", locations(program, vars, &b.terminator_reads));
        }
    }
    if !graph.table_deps().is_empty() {
        let _ = writeln!(out, "  table dependencies:");
        let name = |n: NodeId| match graph.node(n).map(|x| &x.kind) {
            Some(OpKind::ApplyTable(t)) => table(*t),
            _ => "?".into(),
        };
        for d in graph.table_deps() {
            let kind = match (d.kind, d.on_key) {
                (DepKind::Raw, true) => "RAW (match)",
                (DepKind::Raw, false) => "RAW (action)",
                (DepKind::War, _) => "WAR",
                (DepKind::Waw, _) => "WAW",
            };
            let ls: BTreeSet<Location> = d.locations.iter().cloned().collect();
            let _ = writeln!(out, "    n{} {} -> n{} {}: {kind} on {}", d.from.0, name(d.from), d.to.0, name(d.to), locations(program, vars, &ls));
        }
    }
    out
}

/// Prints the def-use summary of every state of `parser`.
pub fn print_parser_defs(program: &Program, parser: ParserId) -> String {
    let Some(p) = program.parsers.get(parser.index()) else { return format!("parser <#{}> (unknown)\n", parser.0) };
    let vars = p.block.vars.as_slice();
    let target = |t: &StateTarget| match t {
        StateTarget::State(s) => p.states.get(s.index()).map(|s| s.name.clone()).unwrap_or_else(|| format!("<state#{}>", s.0)),
        StateTarget::Accept => "accept".into(),
        StateTarget::Reject => "reject".into(),
    };
    let mut out = String::new();
    let _ = writeln!(out, "parser {}", p.block.name);
    for d in parser_state_defs(program, parser) {
        let name = p.states.get(d.state.index()).map(|s| s.name.clone()).unwrap_or_default();
        let next: Vec<String> = d.successors.iter().map(target).collect();
        let _ = writeln!(out, "  state {name} -> {}", next.join(", "));
        if !d.effects.reads.is_empty() {
            let _ = writeln!(out, "      r: {}", locations(program, vars, &d.effects.reads));
        }
        write_sets(&mut out, "      ", program, vars, &d.effects);
    }
    out
}
