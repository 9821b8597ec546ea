//! A map from port number to a value, for what `p4forge run` keeps per port and touches once or
//! twice per packet (packet counts, output files): ports below [`DENSE_PORTS`] are a `Vec` index
//! (a BTreeMap lookup was a visible share of the calling thread's time), larger ones, which
//! programs with 32-bit port fields may use, go to a `BTreeMap`.

use std::collections::BTreeMap;

/// Ports held in the `Vec`: every 9-bit (v1model) port, and more.
pub const DENSE_PORTS: u32 = 4096;

/// Values by port, iterated in port order.
#[derive(Clone, Debug)]
pub struct PortMap<T> {
    /// `dense[port]` for ports below [`DENSE_PORTS`]; grown as ports appear.
    dense: Vec<Option<T>>,
    sparse: BTreeMap<u32, T>,
}

impl<T> Default for PortMap<T> {
    fn default() -> PortMap<T> {
        PortMap { dense: Vec::new(), sparse: BTreeMap::new() }
    }
}

impl<T> PortMap<T> {
    /// The value of `port`, made by `make` if there is none yet (`make` failing leaves none).
    #[inline]
    pub fn get_or_try_insert_with<E>(&mut self, port: u32, make: impl FnOnce() -> Result<T, E>) -> Result<&mut T, E> {
        let index = port as usize;
        // The usual case, a port seen before, checked first and kept small enough to inline.
        if matches!(self.dense.get(index), Some(Some(_))) {
            return Ok(self.dense[index].as_mut().expect("just checked"));
        }
        self.insert(port, make)
    }

    /// [`PortMap::get_or_try_insert_with`] for a port not in the `Vec`.
    #[cold]
    fn insert<E>(&mut self, port: u32, make: impl FnOnce() -> Result<T, E>) -> Result<&mut T, E> {
        if port >= DENSE_PORTS {
            return match self.sparse.entry(port) {
                std::collections::btree_map::Entry::Occupied(slot) => Ok(slot.into_mut()),
                std::collections::btree_map::Entry::Vacant(slot) => Ok(slot.insert(make()?)),
            };
        }
        let index = port as usize;
        if index >= self.dense.len() {
            self.dense.resize_with(index + 1, || None);
        }
        let slot = &mut self.dense[index];
        if slot.is_none() {
            *slot = Some(make()?);
        }
        Ok(slot.as_mut().expect("just filled"))
    }

    /// The value of `port`, its default if there is none yet.
    #[inline]
    pub fn entry_or_default(&mut self, port: u32) -> &mut T
    where
        T: Default,
    {
        match self.get_or_try_insert_with(port, || Ok::<T, std::convert::Infallible>(T::default())) {
            Ok(value) => value,
            Err(never) => match never {},
        }
    }

    /// Every port with a value, in port order, with it.
    pub fn into_ports(self) -> impl Iterator<Item = (u32, T)> {
        let dense = self.dense.into_iter().enumerate().filter_map(|(port, value)| value.map(|v| (port as u32, v)));
        dense.chain(self.sparse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_come_out_in_order_whichever_side_holds_them() {
        let mut map = PortMap::<u64>::default();
        for port in [70_000, 3, DENSE_PORTS, 0, 3, DENSE_PORTS - 1] {
            *map.entry_or_default(port) += 1;
        }
        let all: Vec<(u32, u64)> = map.into_ports().collect();
        assert_eq!(all, [(0, 1), (3, 2), (DENSE_PORTS - 1, 1), (DENSE_PORTS, 1), (70_000, 1)]);
    }

    #[test]
    fn a_failed_insert_leaves_no_value() {
        let mut map = PortMap::<String>::default();
        assert_eq!(map.get_or_try_insert_with(5, || Err("no")), Err::<&mut String, _>("no"));
        assert_eq!(map.get_or_try_insert_with(90_000, || Err("no")), Err::<&mut String, _>("no"));
        assert_eq!(map.get_or_try_insert_with(5, || Ok::<_, ()>("x".to_string())).map(|v| v.clone()), Ok("x".to_string()));
        assert_eq!(map.into_ports().collect::<Vec<_>>(), [(5, "x".to_string())]);
    }
}
