//! The IR's text form. Stable: snapshot tests depend on it.
//! (To be written: see docs/ARCHITECTURE.md.)

use crate::Program;

/// Print a whole program.
pub fn print_program(program: &Program) -> String {
    format!("{program:#?}")
}
