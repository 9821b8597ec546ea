//! The pass interface and the pipeline that runs passes in order.

use crate::passes;
use crate::PassError;
use p4_ir::Program;

/// One transformation of the whole program. A pass leaves the program valid IR that the software
/// dataplane still runs with the same observable behaviour.
pub trait Pass {
    /// A short stable name (`inline-functions`); golden tests live in `tests/passes/<name>/`.
    fn name(&self) -> &'static str;
    fn run(&self, program: &mut Program) -> Result<(), PassError>;
}

/// The names of all passes, in default pipeline order.
///
/// `hoist-effects` runs before `inline-functions`: it turns calls in conditional positions (`a &&
/// f(x)`, `c ? f(x) : y`) into statements under an `if`, where the inliner can then inline them;
/// the other way round, a second lowering would still find calls to inline (the pipeline would not
/// be idempotent, which `tests/pipeline.rs` checks). `unroll-loops` runs after the inliners (loops of
/// inlined functions and sub-blocks are in their callers then, and a `return` in a loop has become a
/// flag and a `break`) and before `unroll-parser-stacks` (an extract through `.next` in a loop is
/// straight-line code after unrolling) and `flatten-locals` (a for-in element copy
/// `init x = stack[K]` is split like any other header copy). `flatten-locals` runs after the
/// inliners (whose parameter copies it splits) and `slice-rmw`, and before `parallel-actions`, which
/// only handles scalar locations.
pub const PASS_NAMES: &[&str] = &[
    passes::inline_controls::NAME,
    passes::inline_parsers::NAME,
    passes::hoist_effects::NAME,
    passes::inline_functions::NAME,
    passes::unroll_loops::NAME,
    passes::slice_rmw::NAME,
    passes::unroll_parser_stacks::NAME,
    passes::flatten_locals::NAME,
    passes::parallel_actions::NAME,
    passes::dead_metadata::NAME,
];

/// The pass called `name`, if there is one.
pub fn pass_by_name(name: &str) -> Option<Box<dyn Pass>> {
    match name {
        passes::inline_controls::NAME => Some(Box::new(passes::inline_controls::InlineControls)),
        passes::inline_parsers::NAME => Some(Box::new(passes::inline_parsers::InlineParsers)),
        passes::inline_functions::NAME => Some(Box::new(passes::inline_functions::InlineFunctions)),
        passes::hoist_effects::NAME => Some(Box::new(passes::hoist_effects::HoistEffects)),
        passes::dead_metadata::NAME => Some(Box::new(passes::dead_metadata::DeadMetadata)),
        passes::parallel_actions::NAME => Some(Box::new(passes::parallel_actions::ParallelActions)),
        passes::slice_rmw::NAME => Some(Box::new(passes::slice_rmw::SliceRmw)),
        passes::flatten_locals::NAME => Some(Box::new(passes::flatten_locals::FlattenLocals)),
        passes::unroll_parser_stacks::NAME => Some(Box::new(passes::unroll_parser_stacks::UnrollParserStacks)),
        passes::unroll_loops::NAME => Some(Box::new(passes::unroll_loops::UnrollLoops)),
        _ => None,
    }
}

/// An ordered list of passes.
pub struct Pipeline {
    passes: Vec<Box<dyn Pass>>,
}

impl Default for Pipeline {
    /// Every pass of [`PASS_NAMES`], in that order.
    fn default() -> Pipeline {
        Pipeline { passes: PASS_NAMES.iter().filter_map(|n| pass_by_name(n)).collect() }
    }
}

impl Pipeline {
    pub fn new(passes: Vec<Box<dyn Pass>>) -> Pipeline {
        Pipeline { passes }
    }

    /// The passes named, in the order given (`Err` names an unknown pass). For a CLI option such as
    /// `--passes inline-controls,inline-functions`.
    pub fn from_names(names: &[&str]) -> Result<Pipeline, String> {
        let mut passes = Vec::new();
        for n in names {
            match pass_by_name(n) {
                Some(p) => passes.push(p),
                None => return Err(format!("unknown mid-end pass `{n}` (known: {})", PASS_NAMES.join(", "))),
            }
        }
        Ok(Pipeline { passes })
    }

    /// The names of the passes, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// Runs every pass in order.
    pub fn run(&self, program: Program) -> Result<Program, PassError> {
        self.run_with(program, |_, _| Ok(()))
    }

    /// Runs every pass in order and calls `after(pass name, program)` after each one; an error from
    /// `after` stops the pipeline (tests pass the IR verifier here). In debug builds the IR
    /// verifier also runs after every pass: a violation the input did not have is an error
    /// naming the pass that made it.
    pub fn run_with(
        &self,
        mut program: Program,
        mut after: impl FnMut(&str, &Program) -> Result<(), PassError>,
    ) -> Result<Program, PassError> {
        let known = if cfg!(debug_assertions) { verify_errors(&program) } else { Vec::new() };
        for pass in &self.passes {
            pass.run(&mut program)?;
            if cfg!(debug_assertions) {
                let new: Vec<String> = verify_errors(&program).into_iter().filter(|e| !known.contains(e)).collect();
                if !new.is_empty() {
                    return Err(PassError::new("verify", format!("after `{}`: {}", pass.name(), new.join("; "))));
                }
            }
            after(pass.name(), &program)?;
        }
        Ok(program)
    }
}

/// What the IR verifier says of `program`, one line per violation.
fn verify_errors(program: &Program) -> Vec<String> {
    p4_ir::verify::verify(program).err().unwrap_or_default().iter().map(ToString::to_string).collect()
}
