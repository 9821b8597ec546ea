//! P4Runtime in front of the software switch: how a pipeline config a controller pushes becomes a
//! running switch (`p4_runtime::server::Loader`), and the switch's program as the device's first
//! pipeline.

use std::path::Path;
use std::sync::Arc;

use p4_runtime::server::{Loaded, Loader};

use crate::error::CliResult;
use crate::frontend::{self, Compiled, SwitchBuild};

/// A compiled program as a pipeline: the software switch, its catalog, ids and p4info.
pub fn loaded(compiled: Compiled, name: &Path, build: SwitchBuild) -> CliResult<Loaded<p4_dataplane::Switch>> {
    loaded_with(compiled, name, |compiled| {
        let mut switch = frontend::software_switches(compiled, name, 1, build)?
            .pop()
            .ok_or_else(|| crate::error::CliError::failed("no software switch was built".to_string()))?;
        // A live switch writes a transmit time (OP4T's t2) as it sends the packet.
        switch.set_tx_clock(p4_dataplane::TxClock::Caller);
        Ok(switch)
    })
}

/// A compiled program as a pipeline on the hardware target: the Verilator model of its design
/// (built, or found built), with the catalog, ids and p4info of the program.
pub fn loaded_rtl(compiled: Compiled, name: &Path) -> CliResult<Loaded<p4_rtl::sim::RtlSwitch>> {
    loaded_with(compiled, name, |compiled| crate::cmd::rtl::switch_of(compiled, name, &p4_rtl::Options::default()))
}

/// The control plane's view of a compiled program, and the target `target` makes of it.
fn loaded_with<T>(compiled: Compiled, name: &Path, target: impl FnOnce(Compiled) -> CliResult<T>) -> CliResult<Loaded<T>> {
    let layouts = p4_ir::layout::Layouts::of(&compiled.program);
    let catalog = p4_control::catalog::Catalog::of(&compiled.program, &layouts)
        .map_err(|why| crate::error::CliError::failed(format!("{}: {why}", name.display())))?;
    let p4info = p4_runtime::p4info::of(&compiled.program, &layouts, &catalog);
    let controller_headers = p4_runtime::controller::of(&compiled.program, &layouts);
    let ids = layouts.ids.clone();
    let target = target(compiled)?;
    Ok(Loaded { target, catalog, ids, p4info, controller_headers })
}

/// Builds switches from pushed device configs: P4 source, or p4forge's IR text (`compile --emit
/// ir`). A BMv2 JSON config is refused with the reason.
pub fn loader(build: SwitchBuild) -> Loader<p4_dataplane::Switch> {
    // On a thread with the parser's stack, as every command compiles: a pushed program nested
    // deeply is an error, not a stack overflow that takes the switch down.
    Arc::new(move |config: &[u8]| p4_syntax::with_parser_stack(|| load(config, |compiled, name| loaded(compiled, name, build))))
}

/// [`loader`] for the hardware target: each pushed program becomes a Verilator model (built once
/// per program: a model built before is reused).
pub fn rtl_loader() -> Loader<p4_rtl::sim::RtlSwitch> {
    Arc::new(move |config: &[u8]| p4_syntax::with_parser_stack(|| load(config, loaded_rtl)))
}

/// The pipeline `make` makes of device config `config`.
fn load<T>(config: &[u8], make: impl FnOnce(Compiled, &Path) -> CliResult<Loaded<T>>) -> Result<Loaded<T>, String> {
    let name = Path::new("p4_device_config");
    let text = std::str::from_utf8(config).map_err(|_| "the device config is not text: p4forge takes P4 source or its IR text".to_string())?;
    if text.trim_start().starts_with('{') {
        return Err("the device config is JSON (a BMv2 config?): p4forge takes P4 source or its IR text (p4forge compile --emit ir)".to_string());
    }
    if text.trim().is_empty() {
        return Err("the device config is empty: p4forge takes P4 source or its IR text".to_string());
    }
    let compiled = match p4_ir::text::parse_program("p4_device_config", text) {
        Ok(program) => Compiled { program, warnings: String::new(), sources: Default::default() },
        Err(_) => {
            let c = p4_sema::compile_str("p4_device_config", text, &frontend::include_dirs(&[]));
            let diagnostics = c.render_diagnostics();
            match c.program {
                Some(program) if !c.has_errors() => Compiled { program, warnings: diagnostics, sources: c.sources },
                _ => return Err(format!("the device config does not compile:\n{diagnostics}")),
            }
        }
    };
    make(compiled, name).map_err(|e| e.to_string())
}
