//! Feed arbitrary bytes to the preprocessor + parser + printer: none may panic, hang or overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut sources = p4_syntax::span::SourceMap::new();
    let out = p4_syntax::parse_str("fuzz.p4", &text, &[], &mut sources);
    for d in &out.diagnostics {
        let _ = d.render(&sources);
    }
    let _ = p4_syntax::print_program(&out.program);
});
