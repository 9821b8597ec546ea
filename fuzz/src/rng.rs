//! xorshift64*: small and deterministic, enough to drive the plain-loop fuzzers' input generation.

/// The generator state; never zero.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 is mapped to 1: xorshift's state must be non-zero).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform-ish in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// Applies 1..=`max_edits` random byte-level edits: delete a run, insert one of `words`, or
/// duplicate a chunk of the input elsewhere.
pub fn mutate(rng: &mut Rng, input: &mut Vec<u8>, words: &[&[u8]], max_edits: usize) {
    for _ in 0..=rng.below(max_edits) {
        let at = rng.below(input.len() + 1);
        match rng.below(4) {
            0 => {
                let end = (at + rng.below(40)).min(input.len());
                input.drain(at..end);
            }
            1 if !words.is_empty() => {
                let w = words[rng.below(words.len())];
                input.splice(at..at, w.iter().copied());
            }
            2 => {
                if let Some(b) = input.get_mut(at) {
                    *b ^= 1 << rng.below(8);
                }
            }
            _ => {
                let from = rng.below(input.len() + 1);
                let end = (from + rng.below(80)).min(input.len());
                let chunk: Vec<u8> = input[from..end].to_vec();
                input.splice(at..at, chunk);
            }
        }
    }
}

/// A P4-ish input: random bytes (a quarter of the time), a soup of `words` (a quarter), or one
/// of `seeds` with random edits (half; an empty input when there are no seeds).
#[allow(dead_code)] // not every loop that includes this file uses it
pub fn p4_input(rng: &mut Rng, words: &[&[u8]], seeds: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(4) {
        0 => {
            let len = rng.below(300);
            rng.bytes(len)
        }
        1 => (0..rng.below(200)).flat_map(|_| [words[rng.below(words.len())], b" "].concat()).collect(),
        _ if seeds.is_empty() => Vec::new(),
        _ => {
            let mut text = seeds[rng.below(seeds.len())].clone();
            mutate(rng, &mut text, words, 8);
            text
        }
    }
}

/// Runs `iterations` inputs from `generate` through `check`, stopping at the first panic (input
/// saved as `<name>-crash-<seed>-<i>.<ext>`, exit status 1) and saving inputs slower than 1 s.
pub fn drive(
    name: &str,
    ext: &str,
    mut generate: impl FnMut(&mut Rng) -> Vec<u8>,
    check: impl Fn(&[u8]) + std::panic::RefUnwindSafe,
) {
    let mut args = std::env::args().skip(1);
    let iterations: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut rng = Rng::new(seed);
    let start = std::time::Instant::now();
    for i in 0..iterations {
        let input = generate(&mut rng);
        let t0 = std::time::Instant::now();
        let result = std::panic::catch_unwind(|| check(&input));
        if t0.elapsed() > std::time::Duration::from_secs(1) {
            let path = format!("{name}-slow-{seed}-{i}.{ext}");
            let _ = std::fs::write(&path, &input);
            eprintln!("iteration {i} took {:.1?}; input saved to {path}", t0.elapsed());
        }
        if result.is_err() {
            let path = format!("{name}-crash-{seed}-{i}.{ext}");
            let _ = std::fs::write(&path, &input);
            eprintln!("panic on iteration {i}; input saved to {path}");
            std::process::exit(1);
        }
    }
    println!("{name}: {iterations} inputs without a panic in {:.1?}", start.elapsed());
}
