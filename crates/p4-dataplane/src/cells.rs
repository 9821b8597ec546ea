//! The cells of a register, counter or meter array, allocated a page at a time on first write.
//!
//! A program may declare `register<bit<32>>(32w0xFFFFFFFF)`: allocating every cell up front would
//! need tens of gigabytes and abort the process. Here a never-written cell holds the array's
//! initial value without being stored, so such a program loads and runs in small memory, and resets
//! or "set every cell" commands replace the initial value instead of walking the cells.
//!
//! Invariant: a stored page covers cells `[n * PAGE, min((n + 1) * PAGE, size))`; every cell not in a
//! stored page holds `initial`.

use std::collections::HashMap;

/// Cells per page.
const PAGE: u64 = 1024;
/// Arrays of up to this many pages find a page by position in a vector (at most 64 KiB of
/// directory); larger ones by hash, so the directory grows only with the pages written.
const DENSE_PAGES: u64 = 4096;

/// A lazily allocated array of `size` cells; see the module documentation.
#[derive(Clone, Debug)]
pub struct Cells<T> {
    size: u64,
    initial: T,
    pages: Pages<T>,
}

#[derive(Clone, Debug)]
enum Pages<T> {
    Dense(Vec<Option<Box<[T]>>>),
    Sparse(HashMap<u64, Box<[T]>>),
}

impl<T: Clone> Cells<T> {
    /// `size` cells holding `initial`; nothing is allocated per cell.
    pub fn new(size: u64, initial: T) -> Cells<T> {
        let pages = size.div_ceil(PAGE);
        let pages = if pages <= DENSE_PAGES { Pages::Dense(vec![None; pages as usize]) } else { Pages::Sparse(HashMap::new()) };
        Cells { size, initial, pages }
    }

    /// The number of cells (as declared).
    pub fn len(&self) -> u64 {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Cell `index`, or `None` when it is out of range.
    pub fn get(&self, index: u64) -> Option<&T> {
        if index >= self.size {
            return None;
        }
        let page = match &self.pages {
            Pages::Dense(pages) => pages.get((index / PAGE) as usize).and_then(Option::as_ref),
            Pages::Sparse(pages) => pages.get(&(index / PAGE)),
        };
        Some(page.map_or(&self.initial, |p| &p[(index % PAGE) as usize]))
    }

    /// Cell `index` for writing (its page is allocated on the first write), or `None` when it is out
    /// of range.
    pub fn get_mut(&mut self, index: u64) -> Option<&mut T> {
        if index >= self.size {
            return None;
        }
        let number = index / PAGE;
        let page_len = (self.size - number * PAGE).min(PAGE) as usize;
        let initial = &self.initial;
        let new_page = || vec![initial.clone(); page_len].into_boxed_slice();
        let page = match &mut self.pages {
            Pages::Dense(pages) => pages.get_mut(number as usize)?.get_or_insert_with(new_page),
            Pages::Sparse(pages) => pages.entry(number).or_insert_with(new_page),
        };
        page.get_mut((index % PAGE) as usize)
    }

    /// Sets every cell to `value` (drops the stored pages; no walk over the cells).
    pub fn fill(&mut self, value: T) {
        self.initial = value;
        match &mut self.pages {
            Pages::Dense(pages) => pages.iter_mut().for_each(|p| *p = None),
            Pages::Sparse(pages) => pages.clear(),
        }
    }

    /// How many cells are stored (for tests of the allocation).
    pub fn stored_cells(&self) -> usize {
        match &self.pages {
            Pages::Dense(pages) => pages.iter().flatten().map(|p| p.len()).sum(),
            Pages::Sparse(pages) => pages.values().map(|p| p.len()).sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_cells_read_the_initial_value_without_storage() {
        let mut cells = Cells::new(u64::from(u32::MAX), 7u128);
        assert_eq!(cells.get(0), Some(&7));
        assert_eq!(cells.get(u64::from(u32::MAX) - 1), Some(&7));
        assert_eq!(cells.get(u64::from(u32::MAX)), None, "out of range");
        assert_eq!(cells.stored_cells(), 0);
        *cells.get_mut(4_000_000_000).unwrap() = 9;
        assert_eq!(cells.get(4_000_000_000), Some(&9));
        assert_eq!(cells.get(4_000_000_001), Some(&7));
        assert_eq!(cells.stored_cells(), 1024, "one page");
        assert!(cells.get_mut(u64::from(u32::MAX)).is_none());
    }

    #[test]
    fn a_small_array_stores_only_its_cells_and_fill_resets_everything() {
        let mut cells = Cells::new(10, (0u64, 0u64));
        *cells.get_mut(9).unwrap() = (1, 64);
        assert_eq!(cells.stored_cells(), 10, "the last page is cut at the array's size");
        cells.fill((2, 2));
        assert_eq!((cells.get(9), cells.get(0), cells.stored_cells()), (Some(&(2, 2)), Some(&(2, 2)), 0));
        assert_eq!(Cells::new(0, 0u8).get(0), None);
    }
}
