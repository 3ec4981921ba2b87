//! `irlint dump` (stub).
