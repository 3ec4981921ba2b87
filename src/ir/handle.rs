//! Typed handles into arenas (the naga pattern).
//!
//! A [`Handle<T>`] is a 32-bit index that remembers what it points at, so a
//! `Handle<Inst>` can never be used to index the block arena. `Option<Handle<T>>`
//! is 4 bytes because the index is stored as `NonZeroU32`.

use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroU32;

/// An index into an [`Arena<T>`].
pub struct Handle<T> {
    index: NonZeroU32,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// Builds a handle from a zero-based index. Returns `None` when the index
    /// does not fit (more than `u32::MAX - 1` items).
    pub fn from_index(index: usize) -> Option<Self> {
        let raw = u32::try_from(index).ok()?.checked_add(1)?;
        Some(Handle { index: NonZeroU32::new(raw)?, _marker: PhantomData })
    }

    /// The zero-based index of the item.
    pub fn index(self) -> usize {
        (self.index.get() - 1) as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index())
    }
}

/// A growable vector of `T` addressed by [`Handle<T>`].
#[derive(Debug, Clone, PartialEq)]
pub struct Arena<T> {
    data: Vec<T>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { data: Vec::new() }
    }
}

impl<T> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty arena with room for `n` items.
    pub fn with_capacity(n: usize) -> Self {
        Arena { data: Vec::with_capacity(n) }
    }

    /// Frees the room reserved past the last item (an arena kept after it
    /// was filled: a lowered function).
    pub fn shrink_to_fit(&mut self) {
        self.data.shrink_to_fit();
    }

    /// Keeps the items whose index `keep` accepts, in order (handles to the
    /// items after a removed one change: the caller renumbers them).
    pub fn retain_indexed(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let mut i = 0;
        self.data.retain(|_| {
            let k = keep(i);
            i += 1;
            k
        });
    }

    /// Appends an item and returns its handle.
    ///
    /// # Panics
    /// Only if more than `u32::MAX - 1` items are stored; the readers' limits
    /// keep every arena far below that.
    pub fn append(&mut self, value: T) -> Handle<T> {
        let h = Handle::from_index(self.data.len()).expect("arena overflow");
        self.data.push(value);
        h
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The item behind a handle, or `None` for a handle from another arena.
    pub fn try_get(&self, h: Handle<T>) -> Option<&T> {
        self.data.get(h.index())
    }

    /// Mutable access to an item.
    pub fn get_mut(&mut self, h: Handle<T>) -> &mut T {
        &mut self.data[h.index()]
    }

    /// Iterates `(handle, item)` pairs in insertion order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (Handle<T>, &T)> + ExactSizeIterator {
        self.data.iter().enumerate().map(|(i, v)| {
            (Handle { index: NonZeroU32::new(i as u32 + 1).unwrap_or(NonZeroU32::MIN), _marker: PhantomData }, v)
        })
    }

    /// Iterates the items only.
    pub fn values(&self) -> std::slice::Iter<'_, T> {
        self.data.iter()
    }

    /// The handle the next `append` will return.
    pub fn next_handle(&self) -> Option<Handle<T>> {
        Handle::from_index(self.data.len())
    }
}

impl<T> std::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    fn index(&self, h: Handle<T>) -> &T {
        &self.data[h.index()]
    }
}

impl<T> std::ops::IndexMut<Handle<T>> for Arena<T> {
    fn index_mut(&mut self, h: Handle<T>) -> &mut T {
        &mut self.data[h.index()]
    }
}

/// A side table indexed by handles of another arena (analysis results).
#[derive(Debug, Clone)]
pub struct HandleVec<T, U> {
    data: Vec<U>,
    _marker: PhantomData<fn(T)>,
}

impl<T, U: Clone> HandleVec<T, U> {
    /// A table of `len` copies of `fill`.
    pub fn new(len: usize, fill: U) -> Self {
        HandleVec { data: vec![fill; len], _marker: PhantomData }
    }
}

impl<T, U> std::ops::Index<Handle<T>> for HandleVec<T, U> {
    type Output = U;
    fn index(&self, h: Handle<T>) -> &U {
        &self.data[h.index()]
    }
}
impl<T, U> std::ops::IndexMut<Handle<T>> for HandleVec<T, U> {
    fn index_mut(&mut self, h: Handle<T>) -> &mut U {
        &mut self.data[h.index()]
    }
}
