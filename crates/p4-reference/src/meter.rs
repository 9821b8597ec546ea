//! Two-rate three-colour meters (RFC 2698), kept here because the control-plane model keeps no
//! meter state. A meter whose rates were never set marks everything green.

use std::collections::BTreeMap;

pub const GREEN: u128 = 0;
pub const YELLOW: u128 = 1;
pub const RED: u128 = 2;

/// `(units per microsecond, burst in units)`.
type Rate = (f64, u32);

#[derive(Clone, Debug)]
struct Cell {
    /// Committed, then peak.
    rates: [Rate; 2],
    tokens: [f64; 2],
    last_us: f64,
}

impl Cell {
    /// A cell whose buckets are full at `now_us`.
    fn new(rates: [Rate; 2], now_us: f64) -> Cell {
        Cell { rates, tokens: [f64::from(rates[0].1), f64::from(rates[1].1)], last_us: now_us }
    }

    fn execute(&mut self, units: f64, now_us: f64) -> u128 {
        let elapsed = (now_us - self.last_us).max(0.0);
        self.last_us = self.last_us.max(now_us);
        for (tokens, (rate, burst)) in self.tokens.iter_mut().zip(self.rates) {
            *tokens = (*tokens + elapsed * rate).min(f64::from(burst));
        }
        // Red if the peak bucket cannot pay, yellow if only the committed one cannot.
        if self.tokens[1] < units {
            RED
        } else if self.tokens[0] < units {
            self.tokens[1] -= units;
            YELLOW
        } else {
            self.tokens[0] -= units;
            self.tokens[1] -= units;
            GREEN
        }
    }
}

/// Every meter cell that has rates, by (extern index, cell index or entry handle).
#[derive(Clone, Debug, Default)]
pub struct Meters {
    cells: BTreeMap<(usize, u64), Cell>,
    /// Rates set for all cells of a meter at once, with when.
    whole: BTreeMap<usize, ([Rate; 2], f64)>,
}

impl Meters {
    pub fn set_rates(&mut self, id: usize, index: Option<u64>, committed: Rate, peak: Rate, now_us: f64) {
        match index {
            Some(i) => {
                self.cells.insert((id, i), Cell::new([committed, peak], now_us));
            }
            None => {
                self.cells.retain(|(m, _), _| *m != id);
                self.whole.insert(id, ([committed, peak], now_us));
            }
        }
    }

    /// Forgets cell `index` of meter `id` (every cell without an index).
    pub fn forget(&mut self, id: usize, index: Option<u64>) {
        match index {
            Some(i) => {
                self.cells.remove(&(id, i));
            }
            None => self.cells.retain(|(m, _), _| *m != id),
        }
    }

    /// Meters `units` on cell `index` of meter `id` at `now_us`: the colour.
    pub fn execute(&mut self, id: usize, index: u64, units: u64, now_us: f64) -> u128 {
        if !self.cells.contains_key(&(id, index)) {
            let Some((rates, since)) = self.whole.get(&id) else { return GREEN };
            self.cells.insert((id, index), Cell::new(*rates, *since));
        }
        self.cells.get_mut(&(id, index)).map_or(GREEN, |c| c.execute(units as f64, now_us))
    }
}
