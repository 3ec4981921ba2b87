//! Large input files mapped into memory instead of read, so that checking a
//! `libtorch_cuda.so`-sized library costs the memory of its largest decoded
//! entry, not of the file.
//!
//! [`FileBytes`] is what the batch driver checks: a file read into a buffer
//! (small files, and every file where mapping is not available), or a
//! read-only private mapping of it ([`Mapped`], Linux, files of at least
//! [`limits::MAP_MIN_BYTES`]). The readers see `&[u8]` either way. A mapped
//! file's pages are the page cache's: they count in the process's resident
//! set as file-backed pages (`RssFile`) while they are touched, and the
//! kernel drops them under memory pressure without writing them anywhere.
//!
//! **A file truncated while mapped.** Reading a page of a mapping that lies
//! past the end of the file raises `SIGBUS`, which would kill the process —
//! a file shrinking under a running check (a build rewriting a library, a
//! capture being rotated) must not. Every live mapping is registered in a
//! fixed table, and a `SIGBUS` handler, installed once before the first
//! mapping, looks the faulting address up there: inside a registered
//! mapping, it maps a page of zeros over the faulting page (`MAP_FIXED`,
//! anonymous, read-only) and records that the mapping was cut, and the read
//! resumes and sees zeros; anywhere else it restores the handler that was
//! there before and returns, so the fault repeats and is handled as it would
//! have been without irlint. The batch driver asks [`Mapped::was_cut`] after
//! checking a mapped file and reports an `input-error` ("the file shrank
//! while it was being read") in place of whatever the zeros produced. Only
//! async-signal-safe work happens in the handler: atomic loads and stores
//! and one `mmap` call. Bytes changed in place (not truncated) while a file
//! is checked are seen or not, as with `read`.
//!
//! When the table is full (more mappings at once than
//! [`limits::MAX_MAPPINGS`]), the signal handler cannot be installed, or
//! `mmap` fails, the file is read as before.

use super::limits;
use std::fs::File;
use std::ops::Deref;

/// The bytes of one input file: read into memory, or mapped.
#[derive(Debug)]
pub enum FileBytes {
    /// Read into a buffer.
    Read(Vec<u8>),
    /// Mapped read-only (large files on Linux).
    Mapped(Mapped),
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Read(v) => v,
            FileBytes::Mapped(m) => m.as_slice(),
        }
    }
}

impl From<Vec<u8>> for FileBytes {
    fn from(v: Vec<u8>) -> Self {
        FileBytes::Read(v)
    }
}

impl FileBytes {
    /// The bytes as an owned buffer (a copy of a mapped file).
    pub fn into_vec(self) -> Vec<u8> {
        match self {
            FileBytes::Read(v) => v,
            FileBytes::Mapped(m) => m.as_slice().to_vec(),
        }
    }

    /// True when the file was mapped and shrank while it was read: some of
    /// the bytes seen were zeros standing in for pages past its new end.
    pub fn was_cut(&self) -> bool {
        matches!(self, FileBytes::Mapped(m) if m.was_cut())
    }

    /// True when the file is mapped rather than read.
    pub fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(_))
    }
}

pub use imp::Mapped;

#[cfg(target_os = "linux")]
mod imp {
    use super::limits;
    use std::fs::File;
    use std::os::unix::io::AsRawFd;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::OnceLock;

    /// One live mapping: `[start, end)`; `start == 0` when the slot is free.
    struct Slot {
        busy: AtomicBool,
        start: AtomicUsize,
        end: AtomicUsize,
        cut: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const FREE: Slot = Slot {
        busy: AtomicBool::new(false),
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        cut: AtomicBool::new(false),
    };

    static SLOTS: [Slot; limits::MAX_MAPPINGS] = [FREE; limits::MAX_MAPPINGS];
    static PAGE: AtomicUsize = AtomicUsize::new(0);
    /// The `SIGBUS` action before ours (restored for faults that are not ours);
    /// `None` when ours could not be installed.
    static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

    /// A read-only private mapping of a whole file, registered with the
    /// `SIGBUS` handler for as long as it lives.
    #[derive(Debug)]
    pub struct Mapped {
        ptr: *const u8,
        len: usize,
        slot: usize,
    }

    // SAFETY: the mapping is read-only and lives until `drop`; `&[u8]` views of
    // it may be shared and sent like those of a `Vec<u8>`.
    unsafe impl Send for Mapped {}
    // SAFETY: as above: nothing writes through the mapping.
    unsafe impl Sync for Mapped {}

    type Handler = extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void);

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = PAGE.load(Ordering::Relaxed);
        for slot in &SLOTS {
            let start = slot.start.load(Ordering::Acquire);
            if start == 0 || addr < start || addr >= slot.end.load(Ordering::Acquire) || page == 0 {
                continue;
            }
            let at = addr & !(page - 1);
            // SAFETY: `at` is a page inside a mapping this module owns; mapping
            // zeros over it only changes what that mapping reads.
            let r = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if r != libc::MAP_FAILED {
                slot.cut.store(true, Ordering::Release);
                return;
            }
            break;
        }
        // Not ours (or zeros could not be mapped): the previous action handles
        // the fault when it repeats on return.
        if let Some(Some(prev)) = PREVIOUS.get() {
            // SAFETY: restoring a sigaction the kernel gave us.
            unsafe { libc::sigaction(sig, prev, std::ptr::null_mut()) };
        }
    }

    fn install() -> bool {
        PREVIOUS
            .get_or_init(|| {
                // SAFETY: sysconf and sigaction with valid arguments; the handler
                // only does async-signal-safe work.
                unsafe {
                    let page = libc::sysconf(libc::_SC_PAGESIZE);
                    if page <= 0 || (page as usize).count_ones() != 1 {
                        return None;
                    }
                    PAGE.store(page as usize, Ordering::Relaxed);
                    let mut act: libc::sigaction = std::mem::zeroed();
                    let handler: Handler = on_sigbus;
                    act.sa_sigaction = handler as usize;
                    act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut act.sa_mask);
                    let mut prev: libc::sigaction = std::mem::zeroed();
                    (libc::sigaction(libc::SIGBUS, &act, &mut prev) == 0).then_some(prev)
                }
            })
            .is_some()
    }

    impl Mapped {
        /// Maps the first `len` bytes of `file` (its size from `fstat`);
        /// `None` when it cannot be mapped (the caller reads it instead).
        pub fn new(file: &File, len: u64) -> Option<Mapped> {
            let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
            if !install() {
                return None;
            }
            let slot = SLOTS
                .iter()
                .position(|s| s.busy.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok())?;
            // SAFETY: a fresh read-only private mapping of an open file; the
            // kernel picks the address.
            let ptr = unsafe {
                libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0)
            };
            if ptr == libc::MAP_FAILED {
                SLOTS[slot].busy.store(false, Ordering::Release);
                return None;
            }
            let s = &SLOTS[slot];
            s.cut.store(false, Ordering::Release);
            s.end.store(ptr as usize + len, Ordering::Release);
            s.start.store(ptr as usize, Ordering::Release);
            Some(Mapped { ptr: ptr as *const u8, len, slot })
        }

        /// The file's bytes.
        pub fn as_slice(&self) -> &[u8] {
            // SAFETY: `ptr` maps `len` readable bytes until `drop`; a page past
            // the file's end reads as zeros (the SIGBUS handler).
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }

        /// True when a page past the file's end was read (the file shrank).
        pub fn was_cut(&self) -> bool {
            SLOTS[self.slot].cut.load(Ordering::Acquire)
        }
    }

    impl Drop for Mapped {
        fn drop(&mut self) {
            let s = &SLOTS[self.slot];
            s.start.store(0, Ordering::Release);
            // SAFETY: unmapping the mapping made in `new` (and any zero pages
            // the handler put over parts of it); no view of it outlives `self`.
            unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
            s.busy.store(false, Ordering::Release);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::fs::File;

    /// Mapping is only done on Linux; elsewhere every file is read.
    #[derive(Debug)]
    pub struct Mapped(std::convert::Infallible);

    impl Mapped {
        /// Always `None`: the caller reads the file.
        pub fn new(_file: &File, _len: u64) -> Option<Mapped> {
            None
        }

        /// Never called (no value exists).
        pub fn as_slice(&self) -> &[u8] {
            match self.0 {}
        }

        /// Never called (no value exists).
        pub fn was_cut(&self) -> bool {
            match self.0 {}
        }
    }
}

/// Maps `file` (of `len` bytes, from `fstat`) when it is large enough to be
/// worth it and within [`limits::MAX_MAPPED_FILE_BYTES`]; `None`: read it.
pub fn map_large(file: &File, len: u64) -> Option<FileBytes> {
    if !(limits::MAP_MIN_BYTES..=limits::MAX_MAPPED_FILE_BYTES).contains(&len) {
        return None;
    }
    Mapped::new(file, len).map(FileBytes::Mapped)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_truncated_while_mapped_reads_as_zeros_and_is_cut() {
        let mut f = tempfile::tempfile().unwrap();
        let len = limits::MAP_MIN_BYTES as usize + 12345;
        f.write_all(&vec![0xA5; len]).unwrap();
        let m = map_large(&f, len as u64).expect("mapped");
        assert!(m.is_mapped());
        assert_eq!(m[0], 0xA5);
        assert!(!m.was_cut());
        f.set_len(4096).unwrap();
        // The first page is still the file's; the rest is past its end.
        assert_eq!(m[100], 0xA5);
        assert_eq!(m[len - 1], 0);
        assert_eq!(m[len / 2], 0);
        assert!(m.was_cut());
        drop(m);
        // The slot is free again and a new mapping is not cut.
        f.set_len(len as u64).unwrap();
        let m = map_large(&f, len as u64).expect("mapped");
        assert_eq!(m[len - 1], 0);
        assert!(!m.was_cut());
        assert_eq!(m.into_vec().len(), len);
    }

    #[test]
    fn small_and_empty_files_are_read() {
        let f = tempfile::tempfile().unwrap();
        assert!(map_large(&f, 0).is_none());
        assert!(map_large(&f, limits::MAP_MIN_BYTES - 1).is_none());
    }
}
