//! Generational slots: the storage behind the world's statics and terrains. A value
//! lives in a slot named by its index and the slot's generation; removing it bumps the
//! generation, so a name kept from before never reaches the slot's next value. Freed
//! slots are reused last-freed first.

use super::WorldError;

/// One slot: its generation and its value (`None` while free).
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Values in generational slots, at most `u32::MAX − 1` of them (indices fit a `u32`).
pub(super) struct Slots<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }
}

/// The most values the slots hold.
const MAX_SLOTS: usize = (u32::MAX - 1) as usize;

impl<T> Slots<T> {
    /// Stores `value` and returns its (index, generation).
    ///
    /// # Errors
    /// [`WorldError::Full`] when every one of the `u32::MAX − 1` slots is taken (nothing
    /// is stored).
    pub(super) fn insert(&mut self, value: T) -> Result<(u32, u32), WorldError> {
        let index = match self.free.pop() {
            Some(k) => k,
            None => {
                if self.slots.len() >= MAX_SLOTS {
                    return Err(WorldError::Full);
                }
                self.slots.push(Slot {
                    generation: 0,
                    value: None,
                });
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.value = Some(value);
        self.live += 1;
        Ok((index, slot.generation))
    }

    /// Takes the value named by (`index`, `generation`) out, freeing its slot.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`] when the name is not a live value's.
    pub(super) fn remove(&mut self, index: u32, generation: u32) -> Result<T, WorldError> {
        let slot = self
            .slots
            .get_mut(index as usize)
            .filter(|s| s.generation == generation)
            .ok_or(WorldError::StaleHandle)?;
        let value = slot.value.take().ok_or(WorldError::StaleHandle)?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(index);
        self.live -= 1;
        Ok(value)
    }

    /// The value named by (`index`, `generation`).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`] when the name is not a live value's.
    pub(super) fn get(&self, index: u32, generation: u32) -> Result<&T, WorldError> {
        self.slots
            .get(index as usize)
            .filter(|s| s.generation == generation)
            .and_then(|s| s.value.as_ref())
            .ok_or(WorldError::StaleHandle)
    }

    /// The value named by (`index`, `generation`), to change.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`] when the name is not a live value's.
    pub(super) fn get_mut(&mut self, index: u32, generation: u32) -> Result<&mut T, WorldError> {
        self.slots
            .get_mut(index as usize)
            .filter(|s| s.generation == generation)
            .and_then(|s| s.value.as_mut())
            .ok_or(WorldError::StaleHandle)
    }

    /// The value in slot `index`, if live, with the slot's generation.
    pub(super) fn at(&self, index: u32) -> Option<(u32, &T)> {
        let s = self.slots.get(index as usize)?;
        s.value.as_ref().map(|v| (s.generation, v))
    }

    /// Slot `index`'s generation (0 for a slot that was never made): a live value's
    /// name is (`index`, this).
    pub(super) fn generation(&self, index: u32) -> u32 {
        self.slots.get(index as usize).map_or(0, |s| s.generation)
    }

    /// The live values: index, generation and value, by index.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, u32, &T)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.value.as_ref().map(|v| (k as u32, s.generation, v)))
    }

    /// How many values are live.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// Whether no value is live.
    pub(super) fn is_empty(&self) -> bool {
        self.live == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_slot_is_reused_under_a_new_generation() {
        let mut s = Slots::default();
        let a = s.insert('a').unwrap();
        let b = s.insert('b').unwrap();
        assert_eq!((a, b), ((0, 0), (1, 0)));
        assert_eq!(s.remove(a.0, a.1), Ok('a'));
        // The old name is stale at once, and stays so after the slot is reused.
        assert_eq!(s.get(a.0, a.1), Err(WorldError::StaleHandle));
        assert_eq!(s.remove(a.0, a.1), Err(WorldError::StaleHandle));
        let c = s.insert('c').unwrap();
        assert_eq!(c, (0, 1));
        assert_eq!(s.get(a.0, a.1), Err(WorldError::StaleHandle));
        assert_eq!(s.get(c.0, c.1), Ok(&'c'));
        *s.get_mut(b.0, b.1).unwrap() = 'B';
        let live: Vec<_> = s.iter().collect();
        assert_eq!(live, vec![(0, 1, &'c'), (1, 0, &'B')]);
        assert_eq!((s.len(), s.is_empty()), (2, false));
        assert_eq!((s.at(1), s.at(2)), (Some((0, &'B')), None));
        assert_eq!((s.generation(0), s.generation(7)), (1, 0));
        // Names out of range or of another generation are refused, never a panic.
        assert_eq!(s.get(9, 0), Err(WorldError::StaleHandle));
        assert_eq!(s.get_mut(1, 3), Err(WorldError::StaleHandle));
    }
}
