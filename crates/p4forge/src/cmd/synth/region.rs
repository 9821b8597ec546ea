//! The region the OP4T shell (`--arch op4t`) reserves for each packet processor: a processor is
//! loaded into it by partial reconfiguration, so one that needs more than the region holds cannot
//! be swapped in, whatever the rest of the device has free. `p4forge synth --arch op4t` reports
//! each processor (`u_pp0`, `u_pp1`) against it and refuses, with the figures, one that does not fit.

use serde::Serialize;

use super::Block;

/// A region's resources.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Region {
    pub luts: u64,
    pub ffs: u64,
    pub bram36: f64,
}

/// The region when none is given: a quarter of the seed board's device (NetFPGA SUME's
/// XC7VX690T: 433,200 LUTs, 866,400 flip-flops, 1,470 BRAM36).
pub const DEFAULT_REGION: Region = Region { luts: 108_300, ffs: 216_600, bram36: 367.5 };

/// The instances that are packet processors in the shell (`crates/p4-rtl/src/wrapper.rs`).
const PROCESSORS: [&str; 2] = ["u_pp0", "u_pp1"];

/// `LUTS/FFS/BRAM36`, e.g. `40000/80000/100`.
pub fn parse_region(text: &str) -> Result<Region, String> {
    let usage = || format!("{text:?}: expected LUTS/FFS/BRAM36, e.g. 40000/80000/100");
    let parts: Vec<&str> = text.split('/').map(str::trim).collect();
    let [luts, ffs, bram] = parts[..] else { return Err(usage()) };
    let region = Region {
        luts: luts.parse().map_err(|_| usage())?,
        ffs: ffs.parse().map_err(|_| usage())?,
        bram36: bram.parse().map_err(|_| usage())?,
    };
    if !(region.bram36 >= 0.0 && region.bram36.is_finite()) {
        return Err(usage());
    }
    Ok(region)
}

/// One processor against the region.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProcessorFit {
    pub instance: String,
    /// LUTs as logic and as memory (a region's LUTs serve both).
    pub luts: u64,
    pub ffs: u64,
    pub bram36: f64,
    pub fits: bool,
}

/// The region and each processor against it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegionReport {
    pub region: Region,
    pub processors: Vec<ProcessorFit>,
}

impl RegionReport {
    /// The processors of `blocks` (the top's instances) against `region`.
    pub fn of(blocks: &[Block], region: Region) -> RegionReport {
        let processors = blocks
            .iter()
            .filter(|b| PROCESSORS.contains(&b.name.as_str()))
            .map(|b| {
                let luts = b.luts + b.lutram;
                ProcessorFit {
                    instance: b.name.clone(),
                    luts,
                    ffs: b.ffs,
                    bram36: b.bram36,
                    fits: luts <= region.luts && b.ffs <= region.ffs && b.bram36 <= region.bram36,
                }
            })
            .collect();
        RegionReport { region, processors }
    }

    /// Why a processor does not fit, with the figures (`None`: every one fits).
    pub fn refusal(&self) -> Option<String> {
        let r = &self.region;
        let over: Vec<String> = self
            .processors
            .iter()
            .filter(|p| !p.fits)
            .map(|p| {
                format!(
                    "{} needs {} LUTs, {} flip-flops and {:.1} BRAM36; the region holds {}, {} and {:.1}",
                    p.instance, p.luts, p.ffs, p.bram36, r.luts, r.ffs, r.bram36
                )
            })
            .collect();
        (!over.is_empty()).then(|| format!("a packet processor does not fit the region the shell reserves: {}", over.join("; ")))
    }

    pub fn render(&self) -> String {
        let r = &self.region;
        let mut out = format!("region per packet processor: {} LUTs, {} flip-flops, {:.1} BRAM36\n", r.luts, r.ffs, r.bram36);
        for p in &self.processors {
            out += &format!(
                "  {}: {} LUTs ({:.0}%), {} flip-flops ({:.0}%), {:.1} BRAM36: {}\n",
                p.instance,
                p.luts,
                100.0 * p.luts as f64 / r.luts.max(1) as f64,
                p.ffs,
                100.0 * p.ffs as f64 / r.ffs.max(1) as f64,
                p.bram36,
                if p.fits { "fits" } else { "DOES NOT FIT" }
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(name: &str, luts: u64, ffs: u64, bram36: f64) -> Block {
        // A tenth of the LUTs as memory, which the region's LUTs hold too.
        Block { name: name.into(), module: "sst_top".into(), luts: luts - luts / 10, ffs, bram36, dsp: 0, lutram: luts / 10, children: Vec::new() }
    }

    #[test]
    fn each_processor_is_held_to_the_region_and_the_refusal_gives_the_figures() {
        let blocks = [block("u_decoupler", 500, 900, 0.0), block("u_pp0", 9_000, 12_000, 10.5), block("u_pp1", 9_000, 12_000, 10.5)];
        let fit = RegionReport::of(&blocks, Region { luts: 10_000, ffs: 20_000, bram36: 20.0 });
        assert_eq!(fit.processors.len(), 2);
        assert!(fit.processors.iter().all(|p| p.fits) && fit.refusal().is_none());
        let tight = RegionReport::of(&blocks, Region { luts: 8_000, ffs: 20_000, bram36: 20.0 });
        assert_eq!(
            tight.refusal().unwrap(),
            "a packet processor does not fit the region the shell reserves: u_pp0 needs 9000 LUTs, 12000 flip-flops and 10.5 BRAM36; \
             the region holds 8000, 20000 and 20.0; u_pp1 needs 9000 LUTs, 12000 flip-flops and 10.5 BRAM36; the region holds 8000, 20000 and 20.0"
        );
    }

    #[test]
    fn regions_parse() {
        assert_eq!(parse_region("40000/80000/100"), Ok(Region { luts: 40_000, ffs: 80_000, bram36: 100.0 }));
        assert!(parse_region("40000/80000").unwrap_err().contains("LUTS/FFS/BRAM36"));
        assert!(parse_region("a/b/c").is_err());
    }
}
