//! Two-rate three-colour meters (RFC 2698 trTCM) as BMv2 runs them.
//!
//! Invariant: token counts never exceed their bucket's burst size. A meter whose rates were never set
//! marks everything green.

/// Colours as v1model reports them.
pub const GREEN: u128 = 0;
pub const YELLOW: u128 = 1;
pub const RED: u128 = 2;

/// One meter cell.
#[derive(Clone, Debug, Default)]
pub struct Meter {
    /// `[committed, peak]` as (units per microsecond, burst in units); `None` until configured.
    rates: Option<[(f64, u32); 2]>,
    tokens: [f64; 2],
    last_us: f64,
}

impl Meter {
    /// Configures the rates; buckets start full.
    pub fn set_rates(&mut self, committed: (f64, u32), peak: (f64, u32), now_us: f64) {
        self.rates = Some([committed, peak]);
        self.tokens = [f64::from(committed.1), f64::from(peak.1)];
        self.last_us = now_us;
    }

    /// Meters `units` (1 for packet meters, the length for byte meters) at time `now_us`.
    pub fn execute(&mut self, units: u32, now_us: f64) -> u128 {
        self.execute_coloured(units, now_us, GREEN)
    }

    /// [`Meter::execute`] for a packet already coloured `pre` (RFC 2698's colour-aware mode): a
    /// red packet stays red and takes no tokens, a yellow one is at best yellow.
    pub fn execute_coloured(&mut self, units: u32, now_us: f64, pre: u128) -> u128 {
        let Some(rates) = self.rates else { return pre.min(RED) };
        let elapsed = (now_us - self.last_us).max(0.0);
        self.last_us = self.last_us.max(now_us);
        for (tokens, (rate, burst)) in self.tokens.iter_mut().zip(rates) {
            *tokens = (*tokens + elapsed * rate).min(f64::from(burst));
        }
        let units = f64::from(units);
        if pre >= RED || self.tokens[1] < units {
            RED
        } else if pre == YELLOW || self.tokens[0] < units {
            self.tokens[1] -= units;
            YELLOW
        } else {
            self.tokens[0] -= units;
            self.tokens[1] -= units;
            GREEN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unconfigured_meter_is_green() {
        let mut m = Meter::default();
        assert_eq!(m.execute(1_000_000, 0.0), GREEN);
    }

    #[test]
    fn packets_turn_yellow_then_red_and_recover() {
        let mut m = Meter::default();
        // committed: 1 packet burst, refilled at 0.001/us; peak: 2 packet burst.
        m.set_rates((0.001, 1), (0.001, 2), 0.0);
        let colours: Vec<u128> = (0..4).map(|_| m.execute(1, 0.0)).collect();
        assert_eq!(colours, vec![GREEN, YELLOW, RED, RED]);
        // 1000 us later both buckets have one token again.
        assert_eq!(m.execute(1, 1000.0), GREEN);
        assert_eq!(m.execute(1, 1000.0), RED);
    }

    #[test]
    fn colour_aware_metering_never_improves_a_colour() {
        let mut m = Meter::default();
        m.set_rates((0.001, 2), (0.001, 3), 0.0);
        // Red takes no tokens; yellow takes only peak tokens.
        assert_eq!(m.execute_coloured(1, 0.0, RED), RED);
        assert_eq!(m.execute_coloured(1, 0.0, YELLOW), YELLOW);
        assert_eq!(m.execute_coloured(1, 0.0, GREEN), GREEN);
        assert_eq!(m.execute_coloured(1, 0.0, GREEN), GREEN);
        // Committed bucket empty, one peak token left.
        assert_eq!(m.execute_coloured(1, 0.0, GREEN), RED);
        // Unconfigured: the colour the packet came with.
        assert_eq!(Meter::default().execute_coloured(1, 0.0, YELLOW), YELLOW);
    }
}
