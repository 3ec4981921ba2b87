//! Zero-copy, never-panicking readers over borrowed bytes.
//!
//! Every reader returns [`ReadError`] with an absolute byte offset instead of
//! panicking; declared counts and sizes are checked against [`limits`] before
//! anything is allocated from them.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod bitstream;
pub mod cursor;
pub mod decompress;
pub mod dxbc;
pub mod error;
pub mod fatbin;
pub mod file;
pub mod limits;
pub mod lines;
pub mod mapped;

pub use error::{ErrorKind, ReadError, Result, TextPosition};
