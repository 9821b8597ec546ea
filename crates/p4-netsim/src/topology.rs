//! Network topologies: built-ins (`two`, `tree:D:F`, `fat-tree:K`, `dumbbell`, `parking-lot[:N]`)
//! and TOML files.
//!
//! Invariant: node and link indices are dense (`0..len`), every link joins two distinct existing
//! nodes, and node names are unique.

use serde::Deserialize;
use std::collections::{HashMap, VecDeque};

/// Default cable length in metres.
pub const DEFAULT_CABLE_M: f64 = 10.0;
/// Longest cable, metres (10GBASE-LR reaches 10 km). Longer values were accepted and their
/// propagation delay overflowed into nonsense; now they are refused with this range.
pub const MAX_CABLE_M: f64 = 10_000.0;
/// Most nodes and links a topology file may declare (the largest built-in, fat-tree:32, has
/// 9472 nodes and 24576 links).
pub const MAX_FILE_NODES: usize = 20_000;
/// See [`MAX_FILE_NODES`].
pub const MAX_FILE_LINKS: usize = 100_000;
/// Largest topology file read (an endless input such as /dev/zero stops here): the limit of
/// every text input of p4forge.
pub const MAX_FILE_BYTES: u64 = p4_io::input::TEXT_LIMIT;
/// The built-in topology names, as the error for an unknown name lists them.
pub const BUILTIN_NAMES: &str = "two, tree:DEPTH:FANOUT, fat-tree:K (K even, <= 32), dumbbell, parking-lot[:LINKS]";

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An end host (a NIC): sources and sinks traffic, never forwards.
    Host,
    /// A switch: forwards frames between its ports.
    Switch,
}

/// A node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Unique name.
    pub name: String,
    /// Host or switch.
    pub kind: NodeKind,
}

/// A full-duplex cable between two nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// One end (node index).
    pub a: usize,
    /// The other end (node index).
    pub b: usize,
    /// Cable length in metres.
    pub length_m: f64,
}

/// A topology.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// Nodes, indexed densely.
    pub nodes: Vec<Node>,
    /// Links, indexed densely.
    pub links: Vec<Link>,
}

/// Errors building or loading a topology.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TopologyError {
    /// The spec is not a built-in name and does not look like a file path.
    #[error("unknown topology `{0}`: use {names} or a .toml file", names = BUILTIN_NAMES)]
    Unknown(String),
    /// The spec names a file (it contains `/`, ends in `.toml` or exists) that cannot be read;
    /// the text says which path and why (missing, a directory, permission denied, too large).
    #[error("{0}")]
    Unreadable(String),
    /// A built-in parameter is out of range.
    #[error("bad topology parameter in `{spec}`: {reason}")]
    BadParam {
        /// The spec.
        spec: String,
        /// Why.
        reason: String,
    },
    /// The TOML file is malformed or out of range.
    #[error("topology file {path}: {reason}")]
    File {
        /// The file (`<inline>` for text parsed without a path).
        path: String,
        /// What is wrong, naming the key.
        reason: String,
    },
}

// Unknown keys are errors (a misspelt `lenght_m` used to be ignored, leaving the default).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNode {
    name: String,
    kind: NodeKind,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLink {
    a: String,
    b: String,
    length_m: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTopology {
    #[serde(default)]
    node: Vec<FileNode>,
    #[serde(default)]
    link: Vec<FileLink>,
}

impl Topology {
    fn add(&mut self, name: String, kind: NodeKind) -> usize {
        self.nodes.push(Node { name, kind });
        self.nodes.len() - 1
    }

    fn connect(&mut self, a: usize, b: usize, length_m: f64) {
        self.links.push(Link { a, b, length_m });
    }

    /// Loads a built-in by name or else a TOML file at that path; every cable gets `cable_m`
    /// metres unless the file says otherwise. A spec that looks like a path (contains `/`, ends
    /// in `.toml`) or exists is read as a file, and a file that cannot be read says so (which
    /// path, why) rather than "unknown topology"; any other unknown name lists the built-ins.
    pub fn load(spec: &str, cable_m: f64) -> Result<Self, TopologyError> {
        match Self::builtin(spec, cable_m) {
            Err(TopologyError::Unknown(_)) => {}
            other => return other,
        }
        let path = std::path::Path::new(spec);
        let looks_like_path = spec.contains('/') || spec.ends_with(".toml") || path.exists();
        if !looks_like_path {
            return Err(TopologyError::Unknown(spec.to_string()));
        }
        let text = p4_io::input::read_text(path, "topology file", MAX_FILE_BYTES)
            .map_err(|e| TopologyError::Unreadable(e.to_string()))?;
        Self::from_toml_file(&text, cable_m, spec)
    }

    /// Parses a TOML topology: `[[node]] name = "h0" kind = "host"` and
    /// `[[link]] a = "h0" b = "s0" length_m = 10` (docs/TOPOLOGY.md has every key).
    pub fn from_toml(text: &str, cable_m: f64) -> Result<Self, TopologyError> {
        Self::from_toml_file(text, cable_m, "<inline>")
    }

    /// [`Topology::from_toml`] with the file's path in every error.
    pub fn from_toml_file(text: &str, cable_m: f64, path: &str) -> Result<Self, TopologyError> {
        let error = |reason: String| TopologyError::File { path: path.to_string(), reason };
        let f: FileTopology = toml::from_str(text).map_err(|e| error(toml_error(&e, text)))?;
        if f.node.len() > MAX_FILE_NODES {
            return Err(error(format!("{} nodes: at most {MAX_FILE_NODES} are allowed", f.node.len())));
        }
        if f.link.len() > MAX_FILE_LINKS {
            return Err(error(format!("{} links: at most {MAX_FILE_LINKS} are allowed", f.link.len())));
        }
        let mut t = Topology::default();
        let mut index = HashMap::new();
        for n in f.node {
            if n.name.trim().is_empty() {
                return Err(error("a node has an empty name".into()));
            }
            if index.contains_key(&n.name) {
                return Err(error(format!("duplicate node `{}`", n.name)));
            }
            let i = t.add(n.name.clone(), n.kind);
            index.insert(n.name, i);
        }
        for l in f.link {
            let find = |n: &str| index.get(n).copied().ok_or_else(|| error(format!("link names unknown node `{n}`")));
            let (a, b) = (find(&l.a)?, find(&l.b)?);
            if a == b {
                return Err(error(format!("link joins `{}` to itself", l.a)));
            }
            let len = l.length_m.unwrap_or(cable_m);
            if !(0.0..=MAX_CABLE_M).contains(&len) {
                return Err(error(format!(
                    "link {}-{}: length_m = {len} is out of range: allowed 0..={MAX_CABLE_M} m",
                    l.a, l.b
                )));
            }
            t.connect(a, b, len);
        }
        if t.nodes.is_empty() {
            return Err(error("no nodes (add [[node]] tables)".into()));
        }
        Ok(t)
    }

    /// A built-in topology.
    pub fn builtin(spec: &str, cable_m: f64) -> Result<Self, TopologyError> {
        let parts: Vec<&str> = spec.split(':').collect();
        let num = |i: usize, default: Option<usize>| -> Result<usize, TopologyError> {
            match parts.get(i) {
                Some(s) => s.parse().map_err(|_| TopologyError::BadParam {
                    spec: spec.into(),
                    reason: format!("`{s}` is not a number"),
                }),
                None => default
                    .ok_or_else(|| TopologyError::BadParam { spec: spec.into(), reason: "missing parameter".into() }),
            }
        };
        let bad = |reason: &str| TopologyError::BadParam { spec: spec.into(), reason: reason.into() };
        let mut t = Topology::default();
        match parts.first().copied().unwrap_or("") {
            "two" => {
                let a = t.add("a".into(), NodeKind::Host);
                let b = t.add("b".into(), NodeKind::Host);
                t.connect(a, b, cable_m);
            }
            "tree" => {
                let (depth, fanout) = (num(1, None)?, num(2, None)?);
                if depth == 0 || fanout == 0 || fanout.checked_pow(depth as u32).is_none_or(|n| n > 20_000) {
                    return Err(bad("need depth >= 1, fanout >= 1 and at most 20000 leaves"));
                }
                let mut level = vec![t.add("s0".into(), NodeKind::Switch)];
                for d in 1..=depth {
                    let mut next = Vec::new();
                    for &parent in &level {
                        for _ in 0..fanout {
                            let kind = if d == depth { NodeKind::Host } else { NodeKind::Switch };
                            let name = format!("{}{}", if d == depth { "h" } else { "s" }, t.nodes.len());
                            let c = t.add(name, kind);
                            t.connect(parent, c, cable_m);
                            next.push(c);
                        }
                    }
                    level = next;
                }
            }
            "fat-tree" => {
                let k = num(1, None)?;
                if k < 2 || k % 2 != 0 || k > 32 {
                    return Err(bad("k must be even, 2..=32"));
                }
                let h = k / 2;
                let core: Vec<usize> = (0..h * h).map(|i| t.add(format!("core{i}"), NodeKind::Switch)).collect();
                for p in 0..k {
                    let aggs: Vec<usize> = (0..h).map(|i| t.add(format!("agg{p}_{i}"), NodeKind::Switch)).collect();
                    let edges: Vec<usize> = (0..h).map(|i| t.add(format!("edge{p}_{i}"), NodeKind::Switch)).collect();
                    for (i, &a) in aggs.iter().enumerate() {
                        for j in 0..h {
                            t.connect(a, core[i * h + j], cable_m);
                        }
                        for &e in &edges {
                            t.connect(a, e, cable_m);
                        }
                    }
                    for (i, &e) in edges.iter().enumerate() {
                        for j in 0..h {
                            let host = t.add(format!("h{p}_{i}_{j}"), NodeKind::Host);
                            t.connect(e, host, cable_m);
                        }
                    }
                }
            }
            "dumbbell" => {
                let s0 = t.add("s0".into(), NodeKind::Switch);
                let s1 = t.add("s1".into(), NodeKind::Switch);
                for (name, sw) in [("mp0", s0), ("n0", s0), ("mp1", s1), ("n1", s1)] {
                    let h = t.add(name.into(), NodeKind::Host);
                    t.connect(h, sw, cable_m);
                }
                t.connect(s0, s1, cable_m);
            }
            "parking-lot" => {
                let n = num(1, Some(3))?;
                if n == 0 || n > 64 {
                    return Err(bad("1..=64 bottleneck links"));
                }
                let sw: Vec<usize> = (0..=n).map(|i| t.add(format!("s{i}"), NodeKind::Switch)).collect();
                for i in 0..n {
                    t.connect(sw[i], sw[i + 1], cable_m);
                }
                let mp0 = t.add("mp0".into(), NodeKind::Host);
                t.connect(mp0, sw[0], cable_m);
                let mp1 = t.add("mp1".into(), NodeKind::Host);
                t.connect(mp1, sw[n], cable_m);
                for i in 0..n {
                    let a = t.add(format!("n{}", 2 * i), NodeKind::Host);
                    t.connect(a, sw[i], cable_m);
                    let b = t.add(format!("n{}", 2 * i + 1), NodeKind::Host);
                    t.connect(b, sw[i + 1], cable_m);
                }
            }
            _ => return Err(TopologyError::Unknown(spec.into())),
        }
        Ok(t)
    }

    /// Index of the node called `name`.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// Indices of all hosts.
    pub fn hosts(&self) -> Vec<usize> {
        (0..self.nodes.len()).filter(|&i| self.nodes[i].kind == NodeKind::Host).collect()
    }

    /// For each node, its (neighbour, link) pairs in link order.
    pub fn adjacency(&self) -> Vec<Vec<(usize, usize)>> {
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for (i, l) in self.links.iter().enumerate() {
            adj[l.a].push((l.b, i));
            adj[l.b].push((l.a, i));
        }
        adj
    }

    /// Hop distances from `src` (`u32::MAX` where unreachable).
    pub fn hops_from(&self, src: usize, adj: &[Vec<(usize, usize)>]) -> Vec<u32> {
        let mut dist = vec![u32::MAX; self.nodes.len()];
        let mut q = VecDeque::new();
        if src < dist.len() {
            dist[src] = 0;
            q.push_back(src);
        }
        while let Some(n) = q.pop_front() {
            for &(m, _) in &adj[n] {
                if dist[m] == u32::MAX {
                    dist[m] = dist[n] + 1;
                    q.push_back(m);
                }
            }
        }
        dist
    }

    /// The longest shortest path in hops between any two nodes of a connected topology.
    pub fn diameter(&self) -> u32 {
        let adj = self.adjacency();
        // Every longest path in these graphs ends at a leaf-like node, but BFS from all nodes is
        // cheap enough (a 1344-node fat tree takes a few million steps) and needs no assumption.
        (0..self.nodes.len())
            .map(|s| self.hops_from(s, &adj).into_iter().filter(|&d| d != u32::MAX).max().unwrap_or(0))
            .max()
            .unwrap_or(0)
    }

    /// Whether every node can reach every other.
    pub fn is_connected(&self) -> bool {
        let adj = self.adjacency();
        self.hops_from(0, &adj).iter().all(|&d| d != u32::MAX)
    }
}

/// A TOML error as one line: the position and serde's message, which for an unknown key lists
/// the known ones (`unknown field `colour`, expected `name` or `kind``).
fn toml_error(e: &toml::de::Error, text: &str) -> String {
    let message = e.message().trim_end();
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_2_3_has_13_nodes_and_4_hops() {
        let t = Topology::builtin("tree:2:3", 10.0).unwrap();
        assert_eq!(t.nodes.len(), 13);
        assert_eq!(t.links.len(), 12);
        assert_eq!(t.hosts().len(), 9);
        assert_eq!(t.diameter(), 4);
    }

    #[test]
    fn fat_tree_sizes() {
        let t = Topology::builtin("fat-tree:4", 10.0).unwrap();
        assert_eq!((t.nodes.len(), t.links.len(), t.hosts().len(), t.diameter()), (36, 48, 16, 6));
        let big = Topology::builtin("fat-tree:16", 10.0).unwrap();
        assert_eq!((big.nodes.len(), big.links.len(), big.hosts().len()), (1344, 3072, 1024));
        assert!(big.is_connected());
    }

    #[test]
    fn dumbbell_and_parking_lot() {
        let d = Topology::builtin("dumbbell", 1.0).unwrap();
        assert_eq!((d.nodes.len(), d.links.len(), d.diameter()), (6, 5, 3));
        let p = Topology::builtin("parking-lot", 1.0).unwrap();
        assert_eq!((p.nodes.len(), p.links.len(), p.hosts().len()), (12, 11, 8));
        let adj = p.adjacency();
        let mp0 = p.node("mp0").unwrap();
        assert_eq!(p.hops_from(mp0, &adj)[p.node("mp1").unwrap()], 5);
    }

    #[test]
    fn toml_file_and_errors() {
        let text = "[[node]]\nname = \"x\"\nkind = \"host\"\n[[node]]\nname = \"y\"\nkind = \"switch\"\n[[link]]\na = \"x\"\nb = \"y\"\nlength_m = 3\n";
        let t = Topology::from_toml(text, 10.0).unwrap();
        assert_eq!(t.links, vec![Link { a: 0, b: 1, length_m: 3.0 }]);
        let e = Topology::from_toml("[[link]]\na=\"p\"\nb=\"q\"\n", 1.0).unwrap_err();
        assert_eq!(e.to_string(), "topology file <inline>: link names unknown node `p`");
        assert!(matches!(Topology::load("nope:1", 1.0), Err(TopologyError::Unknown(_))));
        assert!(matches!(Topology::builtin("fat-tree:3", 1.0), Err(TopologyError::BadParam { .. })));
        assert!(matches!(Topology::builtin("tree:x:3", 1.0), Err(TopologyError::BadParam { .. })));
    }
}

#[cfg(test)]
mod file_tests {
    use super::*;

    fn scratch(name: &str) -> p4_io::testing::Scratch {
        p4_io::testing::scratch_dir("p4-netsim-topo", name)
    }

    #[test]
    fn unknown_keys_are_refused_with_the_known_ones() {
        // `lenght_m` used to be ignored, so the link silently got the default length.
        let text = "[[node]]\nname = \"x\"\nkind = \"host\"\n[[node]]\nname = \"y\"\nkind = \"host\"\n[[link]]\na = \"x\"\nb = \"y\"\nlenght_m = 3\n";
        let e = Topology::from_toml_file(text, 10.0, "net.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "topology file net.toml: line 10, column 1: unknown field `lenght_m`, expected one of `a`, `b`, `length_m`"
        );
        let e = Topology::from_toml_file("[[nodes]]\nname = \"x\"\n", 10.0, "net.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "topology file net.toml: line 1, column 3: unknown field `nodes`, expected `node` or `link`"
        );
        let e = Topology::from_toml_file("[[node]]\nname = \"x\"\nkind = \"host\"\ncolour = 1\n", 10.0, "n.toml")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "topology file n.toml: line 4, column 1: unknown field `colour`, expected `name` or `kind`"
        );
    }

    #[test]
    fn empty_names_and_oversized_files_are_refused() {
        let e = Topology::from_toml_file("[[node]]\nname = \"\"\nkind = \"host\"\n", 10.0, "n.toml").unwrap_err();
        assert_eq!(e.to_string(), "topology file n.toml: a node has an empty name");
        let many = "[[node]]\nname = \"x\"\nkind = \"host\"\n".repeat(MAX_FILE_NODES + 1);
        let e = Topology::from_toml_file(&many, 10.0, "big.toml").unwrap_err();
        assert_eq!(e.to_string(), "topology file big.toml: 20001 nodes: at most 20000 are allowed");
    }

    /// The example in docs/TOPOLOGY.md, kept in the crate so the test suite parses it.
    const EXAMPLE: &str = include_str!("../topologies/example.toml");

    #[test]
    fn the_documented_example_parses_and_is_the_one_in_the_doc() {
        let t = Topology::from_toml_file(EXAMPLE, 10.0, "example.toml").unwrap();
        assert_eq!(t.nodes.len(), 6);
        assert_eq!(t.hosts().len(), 4);
        assert_eq!(t.links.len(), 5);
        // The inter-switch cable is 2 km long; the others take --cable-m (10 here) or their own.
        let s0 = t.node("s0").unwrap();
        let s1 = t.node("s1").unwrap();
        let trunk = t.links.iter().find(|l| (l.a, l.b) == (s0, s1)).unwrap();
        assert_eq!(trunk.length_m, 2000.0);
        assert_eq!(t.links.iter().filter(|l| l.length_m == 10.0).count(), 3);
        assert_eq!(t.diameter(), 3);
        assert!(t.is_connected());
        // docs/TOPOLOGY.md shows this file verbatim.
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/TOPOLOGY.md")).unwrap();
        assert!(
            doc.contains(&format!("```toml\n{EXAMPLE}```")),
            "docs/TOPOLOGY.md does not show topologies/example.toml"
        );
        // And every built-in the doc lists loads.
        for name in ["two", "tree:2:3", "fat-tree:4", "dumbbell", "parking-lot", "parking-lot:5"] {
            assert!(doc.contains(&format!("`{}", name.split(':').next().unwrap())), "{name}");
            Topology::load(name, 10.0).unwrap();
        }
    }

    #[test]
    fn out_of_range_cable_lengths_name_the_key_and_range() {
        // 1e300 m used to overflow the propagation delay and become 0 m.
        for bad in ["1e300", "-1", "nan", "inf"] {
            let text = format!(
                "[[node]]\nname = \"x\"\nkind = \"host\"\n[[node]]\nname = \"y\"\nkind = \"host\"\n[[link]]\na = \"x\"\nb = \"y\"\nlength_m = {bad}\n"
            );
            let e = Topology::from_toml_file(&text, 10.0, "net.toml").unwrap_err();
            let shown = bad.parse::<f64>().unwrap();
            assert_eq!(
                e.to_string(),
                format!("topology file net.toml: link x-y: length_m = {shown} is out of range: allowed 0..=10000 m")
            );
        }
    }

    #[test]
    fn a_missing_or_unreadable_file_says_so_and_unknown_names_list_the_builtins() {
        let e = Topology::load("nosuch.toml", 10.0).unwrap_err();
        assert_eq!(e.to_string(), "cannot read topology file nosuch.toml: no such file or directory");
        let e = Topology::load("/nonexistent/net", 10.0).unwrap_err();
        assert_eq!(e.to_string(), "cannot read topology file /nonexistent/net: no such file or directory");
        let dir = scratch("dir");
        let e = Topology::load(dir.to_str().unwrap(), 10.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("cannot read topology file {}: it is a directory, not a file", dir.display())
        );
        let e = Topology::load("/dev/zero", 10.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read topology file /dev/zero: it is larger than the limit of 64 MiB (an endless input such as /dev/zero?)"
        );
        let e = Topology::load("fattree:4", 10.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown topology `fattree:4`: use two, tree:DEPTH:FANOUT, fat-tree:K (K even, <= 32), dumbbell, parking-lot[:LINKS] or a .toml file"
        );
        // Built-in names keep working, and a readable file is parsed with its path in errors.
        assert_eq!(Topology::load("two", 1.0).unwrap().nodes.len(), 2);
        let file_dir = scratch("file");
        let file = file_dir.join("t.toml");
        std::fs::write(&file, "[[node]]\nname = \"x\"\nkind = \"router\"\n").unwrap();
        let e = Topology::load(file.to_str().unwrap(), 10.0).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("topology file {}: line 3, column 8: unknown variant `router`", file.display())),
            "{e}"
        );
    }
}
