//! A derived graph view of the IR for back ends that map programs onto hardware: each control as a
//! graph of basic blocks with explicit def-use of storage locations, and a def-use summary per parser
//! state (the parser already is an explicit state graph, [`Parser::states`]).
//!
//! Invariants of a [`ControlGraph`] built by [`ControlGraph::build`]:
//! - Blocks are numbered in reverse postorder from the entry (`BlockId(0)`); every block is reachable.
//!   Without `for` loops the graph is a DAG and block order is a topological order ([`ControlGraph::is_dag`]).
//!   A `for` loop yields a back edge (a successor with a smaller or equal id) and `is_dag == false`.
//! - Nodes are numbered in block order; each node belongs to exactly one block.
//! - A table apply is its own node ([`OpKind::ApplyTable`]); applies inside expressions (`t.apply().hit`)
//!   are hoisted into an apply node placed before the node or terminator that uses the result, which then
//!   refers to that apply's result (it does not apply the table again). Short-circuit conditions whose
//!   right operand applies a table are lowered to branches, so the apply stays conditional.
//! - Actions and functions are atomic nodes: their bodies are not expanded into blocks (an `exit` inside
//!   an action does not appear as a terminator). Their effects are summarised in the node.
//! - Each node carries its reads, must-writes and may-writes ([`Effects`]; may-writes include the
//!   must-writes); a block's are the union of its nodes' and its terminator's. Sets are normalised: no
//!   location is listed together with one that covers it in the same set.
//! - Locations ([`Location`]) are field paths from a frame variable (header validity `$valid`, a
//!   stack's `$nextIndex`) or the state of an extern instance. A run-time stack index, `.next`,
//!   `.last` or a slice stands for the whole stack (or variable) and is only ever a may-write.
//! - Per-action and per-table effects are public ([`action_effects`], [`table_action_effects`],
//!   [`table_effects`]): an apply node's effects are [`table_effects`] of its table (all demoted to
//!   may-writes when an expression may skip the apply).

mod effects;
mod print;

pub use effects::{Effects, Location, EXTERN_STATE, NEXT_INDEX, VALID};
pub use print::{location_to_string, print_control_graph, print_parser_defs};

use crate::*;
use effects::{conditional_tables_in, tables_in, Analyzer};
use std::collections::BTreeSet;

/// A basic block's index in [`ControlGraph::blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// A node's index in [`ControlGraph::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// One straight-line operation.
#[derive(Clone, Debug)]
pub enum OpKind {
    /// Variable (re)initialisation.
    Init { var: VarId, init: Option<Expr> },
    Assign { lhs: Expr, rhs: Expr },
    /// A match+action stage: match on the keys, run one of the table's actions.
    ApplyTable(TableId),
    /// A direct action call.
    ActionCall(Call),
    /// A call of a P4 function.
    FunctionCall(Call),
    /// An extern function or method call, or a header/stack builtin (`setValid()`, `push_front(1)`).
    ExternCall(Call),
    /// `sub.apply(args)` of a nested parser/control instance (effects: its arguments by direction).
    ApplyBlock { block: BlockRef, args: Vec<Arg> },
}

#[derive(Clone, Debug)]
pub struct Node {
    pub kind: OpKind,
    pub effects: Effects,
    pub span: Span,
}

impl Node {
    pub fn reads(&self) -> &BTreeSet<Location> {
        &self.effects.reads
    }
    /// Every location the node may write (its must-writes included).
    pub fn writes(&self) -> &BTreeSet<Location> {
        &self.effects.may_writes
    }
    /// The locations the node writes whenever it runs.
    pub fn must_writes(&self) -> &BTreeSet<Location> {
        &self.effects.must_writes
    }
}

/// How a basic block ends.
#[derive(Clone, Debug)]
pub enum Terminator {
    Goto(BlockId),
    Branch { cond: Expr, then: BlockId, otherwise: BlockId },
    /// On the action the preceding apply of `table` ran; `default` when no case names it.
    SwitchAction { table: TableId, cases: Vec<(ActionId, BlockId)>, default: BlockId },
    /// On a value; `default` when no label matches.
    SwitchValue { expr: Expr, cases: Vec<(Value, BlockId)>, default: BlockId },
    /// `exit`: leaves this control and its callers.
    Exit,
    /// End of the apply body (or `return`).
    Return,
}

impl Terminator {
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Terminator::Goto(b) => vec![*b],
            Terminator::Branch { then, otherwise, .. } => vec![*then, *otherwise],
            Terminator::SwitchAction { cases, default, .. } => cases.iter().map(|c| c.1).chain([*default]).collect(),
            Terminator::SwitchValue { cases, default, .. } => cases.iter().map(|c| c.1).chain([*default]).collect(),
            Terminator::Exit | Terminator::Return => Vec::new(),
        }
    }
    fn successors_mut(&mut self) -> Vec<&mut BlockId> {
        match self {
            Terminator::Goto(b) => vec![b],
            Terminator::Branch { then, otherwise, .. } => vec![then, otherwise],
            Terminator::SwitchAction { cases, default, .. } => cases.iter_mut().map(|c| &mut c.1).chain([default]).collect(),
            Terminator::SwitchValue { cases, default, .. } => cases.iter_mut().map(|c| &mut c.1).chain([default]).collect(),
            Terminator::Exit | Terminator::Return => Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct BasicBlock {
    pub nodes: Vec<NodeId>,
    pub terminator: Terminator,
    /// What the terminator reads (a branch condition, a switch expression).
    pub terminator_reads: BTreeSet<Location>,
    /// Union of the nodes' effects and the terminator's reads.
    pub effects: Effects,
}

impl BasicBlock {
    pub fn reads(&self) -> &BTreeSet<Location> {
        &self.effects.reads
    }
    pub fn writes(&self) -> &BTreeSet<Location> {
        &self.effects.may_writes
    }
}

/// The kind of a dependency between two table applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    /// The later table reads what the earlier one writes.
    Raw,
    /// The later table writes what the earlier one reads.
    War,
    /// Both write.
    Waw,
}

/// A dependency between two table-apply nodes where `from` may run before `to`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDep {
    pub from: NodeId,
    pub to: NodeId,
    pub kind: DepKind,
    /// For `Raw`: true if `to`'s *keys* read a location `from` writes (a match dependency: `to`'s
    /// lookup must wait for `from`'s action), false if only `to`'s actions do.
    pub on_key: bool,
    /// The conflicting locations (as `from` sees them).
    pub locations: Vec<Location>,
}

/// Definitions reaching a node (see [`ControlGraph::reaching_writes`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reaching {
    /// Nodes whose writes may reach.
    pub nodes: BTreeSet<NodeId>,
    /// True if the value from before the control (its parameters' values on entry) may reach.
    pub from_entry: bool,
}

/// Effects of running action `action`'s body: what it reads, must-writes and may-writes, its own
/// parameters and locals left out (a caller adds its arguments by direction). Empty for an unknown
/// id. Locations are in the frame of the block the action belongs to ([`Action::block`]).
pub fn action_effects(program: &Program, action: ActionId) -> Effects {
    Analyzer { prog: program }.action_body(action, 0)
}

/// Effects of running `stmts` in a block of `program`: calls, table applies and the actions they
/// run followed. Locations are in the frame of that block.
pub fn stmts_effects(program: &Program, stmts: &[Stmt]) -> Effects {
    let mut fx = Effects::default();
    Analyzer { prog: program }.stmts(stmts, &mut fx, 0);
    fx
}

/// The locations evaluating `e` reads in a block of `program` (in that block's frame).
pub fn expr_reads(program: &Program, e: &Expr) -> BTreeSet<Location> {
    let mut fx = Effects::default();
    Analyzer { prog: program }.expr(e, &mut fx, 0);
    fx.reads
}

/// Effects of each action table `table` may run (its action list, then its default action if not
/// listed), including the arguments the table binds to directional parameters.
pub fn table_action_effects(program: &Program, table: TableId) -> Vec<(ActionId, Effects)> {
    Analyzer { prog: program }.table_actions(table, 0)
}

/// Effects of one apply of `table`: its keys read, then one of its actions (reads and may-writes
/// are the union over [`table_action_effects`], must-writes what every action must-writes), and
/// its direct counter/meter read and updated. This is the effect of an [`OpKind::ApplyTable`] node.
pub fn table_effects(program: &Program, table: TableId) -> Effects {
    Analyzer { prog: program }.table(table, 0)
}

/// The locations a table's keys read (its match stage).
pub fn table_key_reads(program: &Program, table: TableId) -> BTreeSet<Location> {
    let mut fx = Analyzer { prog: program }.table_keys(table, 0);
    fx.normalize();
    fx.reads
}

/// A control's apply body (after its `init`) as a graph of basic blocks.
#[derive(Clone, Debug)]
pub struct ControlGraph {
    pub control: ControlId,
    pub blocks: Vec<BasicBlock>,
    pub nodes: Vec<Node>,
    /// False iff a `for` loop made a back edge.
    pub is_dag: bool,
    /// Per node, its block.
    pub node_block: Vec<BlockId>,
    /// Table-apply dependencies, computed once at build (see [`ControlGraph::table_deps`]).
    deps: Vec<TableDep>,
}

impl ControlGraph {
    /// The entry block.
    pub const ENTRY: BlockId = BlockId(0);

    /// Builds the graph of `control` (its `init` statements followed by its body). An unknown id gives
    /// an empty graph (one `Return` block).
    pub fn build(program: &Program, control: ControlId) -> ControlGraph {
        let mut b = Builder { an: Analyzer { prog: program }, blocks: Vec::new(), loops: Vec::new() };
        let entry = b.new_block();
        let mut cur = entry;
        if let Some(c) = program.controls.get(control.index()) {
            cur = b.stmts(&c.init, cur);
            cur = b.stmts(&c.body, cur);
        }
        b.terminate(cur, Terminator::Return);
        b.finish(control)
    }

    pub fn block(&self, id: BlockId) -> Option<&BasicBlock> {
        self.blocks.get(id.0 as usize)
    }
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.0 as usize)
    }
    /// Block ids in topological order (reverse postorder; exact when [`Self::is_dag`]).
    pub fn topo_order(&self) -> Vec<BlockId> {
        (0..self.blocks.len() as u32).map(BlockId).collect()
    }
    /// Predecessors of each block, in increasing id order.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (i, b) in self.blocks.iter().enumerate() {
            for s in b.terminator.successors() {
                if let Some(p) = preds.get_mut(s.0 as usize) {
                    if !p.contains(&BlockId(i as u32)) {
                        p.push(BlockId(i as u32));
                    }
                }
            }
        }
        preds.iter_mut().for_each(|p| p.sort());
        preds
    }
    /// The table-apply nodes, in order.
    pub fn table_applies(&self) -> Vec<(NodeId, TableId)> {
        self.nodes.iter().enumerate().filter_map(|(i, n)| if let OpKind::ApplyTable(t) = n.kind { Some((NodeId(i as u32), t)) } else { None }).collect()
    }
    /// The definitions of `loc` that may reach node `at` (before it runs): the nodes that may write a
    /// location overlapping `loc` and from which some path reaches `at` without passing a node that
    /// must-write a location covering `loc`. A may-write never kills, so an earlier definition and
    /// a later may-write both reach. Found by a backward walk from `at`, linear in the graph.
    pub fn reaching_writes(&self, at: NodeId, loc: &Location) -> Reaching {
        let mut out = Reaching::default();
        let Some(&start) = self.node_block.get(at.0 as usize) else { return out };
        let preds = self.predecessors();
        let mut seen = vec![false; self.blocks.len()];
        // (block, nodes of it to scan backwards: those before `at` in its own block, all otherwise)
        let first: Vec<NodeId> = self.blocks[start.0 as usize].nodes.iter().copied().take_while(|&n| n != at).collect();
        let mut work: Vec<(BlockId, Vec<NodeId>)> = vec![(start, first)];
        while let Some((b, nodes)) = work.pop() {
            if self.scan_back(&nodes, loc, &mut out.nodes) {
                continue;
            }
            if b == ControlGraph::ENTRY {
                out.from_entry = true;
            }
            for &p in &preds[b.0 as usize] {
                if !std::mem::replace(&mut seen[p.0 as usize], true) {
                    work.push((p, self.blocks[p.0 as usize].nodes.clone()));
                }
            }
        }
        out
    }

    /// Scans `nodes` from the last: collects writers of `loc`; true if one kills it.
    fn scan_back(&self, nodes: &[NodeId], loc: &Location, found: &mut BTreeSet<NodeId>) -> bool {
        for &n in nodes.iter().rev() {
            let fx = &self.nodes[n.0 as usize].effects;
            if fx.may_writes.iter().any(|w| w.overlaps(loc)) {
                found.insert(n);
            }
            if fx.must_writes.iter().any(|w| w.covers(loc)) {
                return true;
            }
        }
        false
    }

    /// Dependencies between table applies that may run one after the other (RAW, WAR, WAW), ordered by
    /// `(from, to, kind)`: what a pipeline generator needs to place tables in stages. Only direct
    /// dependencies are listed: `to` depends on the nearest earlier applies that touch the location
    /// (the last writers on some path, the readers since). When `a` writes `x`, `b` writes `x` and `c`
    /// reads `x`, the list has `a -> b` (WAW) and `b -> c` (RAW) but not `a -> c`, which the two
    /// imply; so the list grows with the program, not with the square of its number of tables.
    /// Conflicts count every write, must or may; this holds when `b`'s write of `x` is only a
    /// may-write too (`a`'s value can still reach `c`, but `a -> b -> c` orders them). Which writes
    /// reach a node is [`Self::reaching_writes`].
    pub fn table_deps(&self) -> &[TableDep] {
        &self.deps
    }

    /// Computes [`Self::table_deps`] by a forward dataflow over the blocks. The state maps each
    /// location a table apply touched to the applies that last wrote it and the applies that read it
    /// since; an apply depends on the writers (RAW, WAW) and readers (WAR) of the entries its own
    /// reads and writes overlap, then becomes the only writer of what it writes. So an apply depends
    /// on the *nearest* earlier applies touching a location on some path, not on every earlier one:
    /// a dependency implied by a chain through an intermediate apply that writes the location is not
    /// listed (the order it imposes follows transitively). The list and the work are linear in the
    /// number of applies times their effects, not quadratic in the number of tables.
    fn compute_deps(&mut self, an: &Analyzer) {
        let n = self.blocks.len();
        if n == 0 {
            return;
        }
        let preds = self.predecessors();
        // Uses of each block's out-state still to come (its successors), to free states early.
        let mut uses: Vec<usize> = self.blocks.iter().map(|b| b.terminator.successors().len()).collect();
        let mut out: Vec<Option<DepState>> = vec![None; n];
        let mut keys_of: std::collections::HashMap<TableId, Effects> = std::collections::HashMap::new();
        let mut found: std::collections::BTreeMap<(NodeId, NodeId, DepKind), BTreeSet<Location>> = std::collections::BTreeMap::new();
        // A DAG needs one pass in block order; a back edge needs passes until no out-state changes.
        let max_passes = if self.is_dag { 1 } else { 64 };
        for _ in 0..max_passes {
            let mut changed = false;
            for b in 0..n {
                let mut state = DepState::default();
                for p in &preds[b] {
                    if let Some(ps) = &out[p.0 as usize] {
                        state.merge(ps);
                    }
                }
                if self.is_dag {
                    for p in &preds[b] {
                        let u = &mut uses[p.0 as usize];
                        *u = u.saturating_sub(1);
                        if *u == 0 {
                            out[p.0 as usize] = None;
                        }
                    }
                }
                for &id in &self.blocks[b].nodes {
                    let node = &self.nodes[id.0 as usize];
                    if let OpKind::ApplyTable(t) = node.kind {
                        state.apply(id, &node.effects, &mut found);
                        keys_of.entry(t).or_insert_with(|| an.table_keys(t, 0));
                    }
                }
                if out[b].as_ref() != Some(&state) {
                    changed = true;
                    out[b] = Some(state);
                }
            }
            if !changed {
                break;
            }
        }
        self.deps = found
            .into_iter()
            .map(|((from, to, kind), locations)| {
                let keys = match self.nodes.get(to.0 as usize).map(|x| &x.kind) {
                    Some(OpKind::ApplyTable(t)) => keys_of.get(t),
                    _ => None,
                };
                let on_key = kind == DepKind::Raw && keys.is_some_and(|k| locations.iter().any(|l| k.reads.iter().any(|r| l.overlaps(r))));
                TableDep { from, to, kind, on_key, locations: locations.into_iter().collect() }
            })
            .collect();
    }
}

/// A set of table-apply nodes as a shared list, newest first: adding a node is O(1) and copying a
/// set (at every branch of the graph) is a pointer copy. Sets flowing into a join usually share
/// their tail (both arms start from the branch's state), so [`NodeList::union`] walks only the
/// parts that differ. Without this, every `if` after many applies reading one location would copy
/// that location's whole reader set.
#[derive(Clone, Debug, Default)]
struct NodeList(Option<std::rc::Rc<Cons>>);

#[derive(Debug)]
struct Cons {
    node: NodeId,
    len: usize,
    next: NodeList,
}

impl Drop for NodeList {
    /// Iterative, so dropping a list of many thousand nodes does not recurse once per node.
    fn drop(&mut self) {
        let mut cur = self.0.take();
        while let Some(rc) = cur {
            match std::rc::Rc::try_unwrap(rc) {
                Ok(mut cons) => cur = cons.next.0.take(),
                Err(_) => break,
            }
        }
    }
}

impl NodeList {
    fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |c| c.len)
    }
    fn push(&self, node: NodeId) -> NodeList {
        NodeList(Some(std::rc::Rc::new(Cons { node, len: self.len() + 1, next: self.clone() })))
    }
    fn same(&self, other: &NodeList) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::rc::Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
    fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut cur = self.0.as_deref();
        std::iter::from_fn(move || {
            let c = cur?;
            cur = c.next.0.as_deref();
            Some(c.node)
        })
    }
    fn set(&self) -> BTreeSet<NodeId> {
        self.iter().collect()
    }
    /// The union: the common tail is kept shared, the differing heads are pushed onto it.
    fn union(&self, other: &NodeList) -> NodeList {
        let (mut a, mut b) = (self.clone(), other.clone());
        let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
        while a.len() > b.len() {
            only_a.push(a.0.as_ref().map(|c| c.node).unwrap_or(NodeId(0)));
            a = a.0.as_ref().map(|c| c.next.clone()).unwrap_or_default();
        }
        while b.len() > a.len() {
            only_b.push(b.0.as_ref().map(|c| c.node).unwrap_or(NodeId(0)));
            b = b.0.as_ref().map(|c| c.next.clone()).unwrap_or_default();
        }
        while !a.same(&b) {
            let (Some(ca), Some(cb)) = (a.0.clone(), b.0.clone()) else { break };
            only_a.push(ca.node);
            only_b.push(cb.node);
            a = ca.next.clone();
            b = cb.next.clone();
        }
        if only_b.is_empty() {
            return self.clone();
        }
        if only_a.is_empty() {
            return other.clone();
        }
        // Not checked against the tail (that would cost its length at every join): in one pass over
        // a DAG a node cannot be both in an arm and before the branch; in a cyclic graph a repeat
        // is harmless (the lists are used as sets).
        let mut out = a;
        let mut seen = BTreeSet::new();
        for n in only_a.into_iter().rev().chain(only_b.into_iter().rev()) {
            if seen.insert(n) {
                out = out.push(n);
            }
        }
        out
    }
}

/// The dataflow state of [`ControlGraph::compute_deps`]: per location touched by a table apply, the
/// applies that may have written it last and those that may have read it since.
#[derive(Clone, Debug, Default)]
struct DepState {
    entries: std::collections::BTreeMap<Location, (NodeList, NodeList)>,
}

impl PartialEq for DepState {
    /// Set equality (compared only when iterating a cyclic graph to its fixpoint).
    fn eq(&self, other: &DepState) -> bool {
        self.entries.len() == other.entries.len()
            && self.entries.iter().zip(&other.entries).all(|((l, (w, r)), (m, (x, y)))| {
                l == m && (w.same(x) || w.set() == x.set()) && (r.same(y) || r.set() == y.set())
            })
    }
}

impl DepState {
    fn merge(&mut self, other: &DepState) {
        for (l, (w, r)) in &other.entries {
            match self.entries.get_mut(l) {
                Some(e) => {
                    e.0 = e.0.union(w);
                    e.1 = e.1.union(r);
                }
                None => {
                    self.entries.insert(l.clone(), (w.clone(), r.clone()));
                }
            }
        }
    }

    /// The keys of entries overlapping `l`: its prefixes (at most its length) and the locations it
    /// is a prefix of (a contiguous range in the map's order).
    fn overlapping(&self, l: &Location) -> Vec<Location> {
        let mut found = Vec::new();
        for k in 0..l.path.len() {
            let prefix = Location { var: l.var, path: l.path[..k].to_vec() };
            if self.entries.contains_key(&prefix) {
                found.push(prefix);
            }
        }
        for (m, _) in self.entries.range(l.clone()..) {
            if m.var != l.var || m.path.len() < l.path.len() || m.path[..l.path.len()] != l.path[..] {
                break;
            }
            found.push(m.clone());
        }
        found
    }

    /// Records the dependencies of table apply `to` with effects `fx`, then its own reads and writes.
    fn apply(&mut self, to: NodeId, fx: &Effects, found: &mut std::collections::BTreeMap<(NodeId, NodeId, DepKind), BTreeSet<Location>>) {
        let mut add = |from: NodeId, kind: DepKind, l: &Location| {
            if from != to {
                found.entry((from, to, kind)).or_default().insert(l.clone());
            }
        };
        for r in &fx.reads {
            for l in self.overlapping(r) {
                for w in self.entries[&l].0.iter() {
                    add(w, DepKind::Raw, &l);
                }
            }
        }
        for w in &fx.may_writes {
            for l in self.overlapping(w) {
                let (writers, readers) = &self.entries[&l];
                for x in writers.iter() {
                    add(x, DepKind::Waw, &l);
                }
                for x in readers.iter() {
                    add(x, DepKind::War, &l);
                }
            }
        }
        for r in &fx.reads {
            let e = self.entries.entry(r.clone()).or_default();
            if e.1.iter().next() != Some(to) {
                e.1 = e.1.push(to);
            }
        }
        for w in &fx.may_writes {
            // Every apply that touched what `w` covers now precedes `to` (the WAW and WAR above), so
            // `to` stands for them towards later applies: a later dependency on them is implied
            // through `to`. This holds for may-writes too, which do not kill a definition (see
            // [`ControlGraph::reaching_writes`]) but do order it; and it keeps the list linear.
            let covered: Vec<Location> = self.overlapping(w).into_iter().filter(|l| l.path.len() >= w.path.len()).collect();
            for l in covered {
                self.entries.remove(&l);
            }
            self.entries.insert(w.clone(), (NodeList::default().push(to), NodeList::default()));
        }
    }
}

struct Builder<'p> {
    an: Analyzer<'p>,
    /// `None` terminator: still open.
    blocks: Vec<(Vec<Node>, Option<Terminator>)>,
    /// Innermost loop last: (continue target, break target).
    loops: Vec<(BlockId, BlockId)>,
}

impl<'p> Builder<'p> {
    fn new_block(&mut self) -> BlockId {
        self.blocks.push((Vec::new(), None));
        BlockId(self.blocks.len() as u32 - 1)
    }

    fn push(&mut self, b: BlockId, kind: OpKind, mut effects: Effects, span: Span) {
        effects.normalize();
        if let Some(blk) = self.blocks.get_mut(b.0 as usize) {
            blk.0.push(Node { kind, effects, span });
        }
    }

    /// Ends `b` unless already ended (code after `exit`/`return`/`break` goes to a fresh unreachable block).
    fn terminate(&mut self, b: BlockId, t: Terminator) {
        if let Some(blk) = self.blocks.get_mut(b.0 as usize) {
            if blk.1.is_none() {
                blk.1 = Some(t);
            }
        }
    }

    /// Applies hoisted out of `e`, each its own node in `b`; one that `e` may skip (`x = c &&
    /// t.apply().hit`) only may-writes.
    fn hoist_applies(&mut self, e: &Expr, b: BlockId) {
        let conditional = conditional_tables_in(e);
        for t in tables_in(e) {
            let mut fx = self.an.table(t, 0);
            if conditional.contains(&t) {
                fx.demote();
            }
            self.push(b, OpKind::ApplyTable(t), fx, e.span);
        }
    }

    fn expr_effects(&self, e: &Expr) -> Effects {
        let mut fx = Effects::default();
        self.an.expr(e, &mut fx, 0);
        fx
    }

    fn stmts(&mut self, ss: &[Stmt], mut cur: BlockId) -> BlockId {
        for s in ss {
            cur = self.stmt(s, cur);
        }
        cur
    }

    /// Lowers `s` starting in `cur`; returns the block where control continues.
    fn stmt(&mut self, s: &Stmt, cur: BlockId) -> BlockId {
        match s {
            Stmt::VarInit { var, init, span } => {
                let mut fx = Effects::default();
                if let Some(e) = init {
                    self.hoist_applies(e, cur);
                    fx = self.expr_effects(e);
                }
                fx.write_must(Location { var: *var, path: Vec::new() });
                self.push(cur, OpKind::Init { var: *var, init: init.clone() }, fx, *span);
                cur
            }
            Stmt::Assign { lhs, rhs, span } => {
                self.hoist_applies(rhs, cur);
                let mut fx = self.expr_effects(rhs);
                self.an.write(lhs, &mut fx, 0);
                self.push(cur, OpKind::Assign { lhs: lhs.clone(), rhs: rhs.clone() }, fx, *span);
                cur
            }
            Stmt::Call(c) => {
                c.args.iter().for_each(|a| self.hoist_applies(&a.expr, cur));
                let mut fx = Effects::default();
                self.an.call(c, &mut fx, 0);
                let kind = match c.callee {
                    Callee::Action(_) => OpKind::ActionCall(c.clone()),
                    Callee::Function(_) => OpKind::FunctionCall(c.clone()),
                    _ => OpKind::ExternCall(c.clone()),
                };
                self.push(cur, kind, fx, c.span);
                cur
            }
            Stmt::ApplyTable { table, span } => {
                let fx = self.an.table(*table, 0);
                self.push(cur, OpKind::ApplyTable(*table), fx, *span);
                cur
            }
            Stmt::ApplyBlock { block, args, span } => {
                let fx = self.an.apply_block(block, args, 0);
                self.push(cur, OpKind::ApplyBlock { block: block.clone(), args: args.clone() }, fx, *span);
                cur
            }
            Stmt::If { cond, then, otherwise, .. } => {
                let (t, e, join) = (self.new_block(), self.new_block(), self.new_block());
                self.cond(cond, cur, t, e);
                let t_end = self.stmts(then, t);
                self.terminate(t_end, Terminator::Goto(join));
                let e_end = self.stmts(otherwise, e);
                self.terminate(e_end, Terminator::Goto(join));
                join
            }
            Stmt::SwitchAction { table, cases, span } => {
                let fx = self.an.table(*table, 0);
                self.push(cur, OpKind::ApplyTable(*table), fx, *span);
                let join = self.new_block();
                let (arms, default) = self.arms(cases, join);
                self.terminate(cur, Terminator::SwitchAction { table: *table, cases: arms, default });
                join
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                self.hoist_applies(expr, cur);
                let join = self.new_block();
                let (arms, default) = self.arms(cases, join);
                self.terminate(cur, Terminator::SwitchValue { expr: expr.clone(), cases: arms, default });
                join
            }
            Stmt::Block(b) => self.stmts(b, cur),
            Stmt::Exit(_) => {
                self.terminate(cur, Terminator::Exit);
                self.new_block()
            }
            Stmt::Return(_, _) => {
                self.terminate(cur, Terminator::Return);
                self.new_block()
            }
            Stmt::For { init, cond, update, body, .. } => {
                let cur = self.stmts(init, cur);
                let (head, first, step, exit) = (self.new_block(), self.new_block(), self.new_block(), self.new_block());
                self.terminate(cur, Terminator::Goto(head));
                match cond {
                    Some(c) => self.cond(c, head, first, exit),
                    None => self.terminate(head, Terminator::Goto(first)),
                }
                self.loops.push((step, exit));
                let end = self.stmts(body, first);
                self.loops.pop();
                self.terminate(end, Terminator::Goto(step));
                let step_end = self.stmts(update, step);
                self.terminate(step_end, Terminator::Goto(head));
                exit
            }
            Stmt::Break(_) | Stmt::Continue(_) => {
                let Some(&(cont, brk)) = self.loops.last() else { return cur };
                self.terminate(cur, Terminator::Goto(if matches!(s, Stmt::Break(_)) { brk } else { cont }));
                self.new_block()
            }
            Stmt::Empty => cur,
        }
    }

    /// Case arms of a switch: each body in its own block ending at `join`; `None` labels give the default.
    fn arms<L: Clone>(&mut self, cases: &[(Option<L>, Vec<Stmt>)], join: BlockId) -> (Vec<(L, BlockId)>, BlockId) {
        let mut arms = Vec::new();
        let mut default = join;
        for (label, body) in cases {
            let start = self.new_block();
            let end = self.stmts(body, start);
            self.terminate(end, Terminator::Goto(join));
            match label {
                Some(l) => arms.push((l.clone(), start)),
                None => default = start,
            }
        }
        (arms, default)
    }

    /// Ends `cur` with a branch on `cond`. `a && b` / `a || b` / `!a` whose operands apply tables become
    /// control flow so that a guarded apply stays guarded.
    fn cond(&mut self, cond: &Expr, cur: BlockId, then: BlockId, otherwise: BlockId) {
        match &cond.kind {
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) if !tables_in(r).is_empty() => {
                let mid = self.new_block();
                if *op == BinOp::And {
                    self.cond(l, cur, mid, otherwise);
                } else {
                    self.cond(l, cur, then, mid);
                }
                self.cond(r, mid, then, otherwise);
            }
            ExprKind::Unary(UnOp::Not, x) if !tables_in(x).is_empty() => self.cond(x, cur, otherwise, then),
            _ => {
                self.hoist_applies(cond, cur);
                self.terminate(cur, Terminator::Branch { cond: cond.clone(), then, otherwise });
            }
        }
    }

    /// Threads jumps through empty `Goto` blocks, drops unreachable blocks, renumbers blocks in reverse
    /// postorder and nodes in block order, and summarises effects.
    fn finish(self, control: ControlId) -> ControlGraph {
        let Builder { an, blocks, .. } = self;
        let mut blocks: Vec<(Vec<Node>, Terminator)> = blocks.into_iter().map(|(n, t)| (n, t.unwrap_or(Terminator::Return))).collect();
        // Jump threading: an empty block that only jumps on is replaced by its target.
        let forward = |blocks: &Vec<(Vec<Node>, Terminator)>, mut b: BlockId| {
            for _ in 0..blocks.len() {
                match blocks.get(b.0 as usize) {
                    Some((nodes, Terminator::Goto(next))) if nodes.is_empty() && *next != b => b = *next,
                    _ => break,
                }
            }
            b
        };
        for i in 0..blocks.len() {
            let targets: Vec<BlockId> = blocks[i].1.successors().into_iter().map(|s| forward(&blocks, s)).collect();
            for (slot, t) in blocks[i].1.successors_mut().into_iter().zip(targets) {
                *slot = t;
            }
        }
        let entry = forward(&blocks, BlockId(0));
        // Reverse postorder from the entry (iterative DFS, successors in order).
        let mut post = Vec::new();
        let mut seen = vec![false; blocks.len()];
        let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
        seen[entry.0 as usize] = true;
        while let Some((b, i)) = stack.pop() {
            let succs = blocks[b.0 as usize].1.successors();
            if let Some(&s) = succs.get(i) {
                stack.push((b, i + 1));
                if !seen[s.0 as usize] {
                    seen[s.0 as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
        post.reverse();
        let mut renum = vec![BlockId(u32::MAX); blocks.len()];
        for (new, old) in post.iter().enumerate() {
            renum[old.0 as usize] = BlockId(new as u32);
        }
        let mut graph = ControlGraph { control, blocks: Vec::new(), nodes: Vec::new(), is_dag: true, node_block: Vec::new(), deps: Vec::new() };
        let mut taken: Vec<Option<(Vec<Node>, Terminator)>> = blocks.into_iter().map(Some).collect();
        for (new, old) in post.iter().enumerate() {
            let Some((nodes, mut term)) = taken[old.0 as usize].take() else { continue };
            for s in term.successors_mut() {
                *s = renum[s.0 as usize];
                if s.0 as usize <= new {
                    graph.is_dag = false;
                }
            }
            let mut fx = Effects::default();
            let mut ids = Vec::new();
            for n in nodes {
                fx.extend(n.effects.clone());
                ids.push(NodeId(graph.nodes.len() as u32));
                graph.nodes.push(n);
                graph.node_block.push(BlockId(new as u32));
            }
            let mut term_fx = Effects::default();
            match &term {
                Terminator::Branch { cond: e, .. } | Terminator::SwitchValue { expr: e, .. } => an.expr(e, &mut term_fx, 0),
                _ => {}
            }
            term_fx.normalize();
            fx.extend(term_fx.clone());
            fx.normalize();
            graph.blocks.push(BasicBlock { nodes: ids, terminator: term, terminator_reads: term_fx.reads, effects: fx });
        }
        graph.compute_deps(&an);
        graph
    }
}

/// Def-use summary of one parser state.
#[derive(Clone, Debug)]
pub struct StateDefs {
    pub state: StateId,
    /// Body and select keys.
    pub effects: Effects,
    /// Possible next states, in case order, without duplicates (a `select` can also reject).
    pub successors: Vec<StateTarget>,
}

/// Def-use summary of every state of `parser` (empty for an unknown id). `extract(hdr)` writes the
/// whole header (its fields and validity) and reads and writes the `packet_in` variable (its cursor).
pub fn parser_state_defs(program: &Program, parser: ParserId) -> Vec<StateDefs> {
    let an = Analyzer { prog: program };
    let Some(p) = program.parsers.get(parser.index()) else { return Vec::new() };
    p.states
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut fx = Effects::default();
            an.stmts(&s.body, &mut fx, 0);
            let mut successors = Vec::new();
            match &s.transition {
                Transition::Goto(t) => successors.push(*t),
                Transition::Select { keys, cases } => {
                    keys.iter().for_each(|k| an.expr(k, &mut fx, 0));
                    for c in cases {
                        if !successors.contains(&c.target) {
                            successors.push(c.target);
                        }
                    }
                    let catch_all = cases.iter().any(|c| c.keysets.iter().all(|k| matches!(k, Keyset::Any)));
                    if !catch_all && !successors.contains(&StateTarget::Reject) {
                        successors.push(StateTarget::Reject);
                    }
                }
            }
            fx.normalize();
            StateDefs { state: StateId(i as u32), effects: fx, successors }
        })
        .collect()
}
