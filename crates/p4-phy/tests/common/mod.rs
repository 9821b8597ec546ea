//! Helpers shared by the integration tests.

/// The consecutive pieces that `pattern` (repeated as often as needed) cuts `0..total` into:
/// how the tests feed one stream to the bulk paths in uneven calls.
pub fn pieces(total: usize, pattern: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for len in pattern.iter().cycle() {
        if at == total || *len == 0 {
            break;
        }
        let end = (at + len).min(total);
        out.push(at..end);
        at = end;
    }
    out
}
