//! Reading files from disk within a size limit: every file irlint opens
//! (inputs, `irlint.toml`, baselines, ignore files, source files named by
//! debug info, `irlint atoms` records, DXC includes) goes through
//! [`read_bounded`], which never blocks on a FIFO or reads an endless device.

use std::io::Read;
use std::path::Path;

/// Reads any file irlint opens — inputs, `irlint.toml`, baselines, ignore
/// files, source files named by debug info, `irlint atoms` records, DXC
/// includes — refusing anything that is not a regular file and anything over
/// `limit` bytes (`what` names the limit in the error: "file is N bytes, over
/// the L-byte config limit").
///
/// A FIFO, socket or device is refused from its `stat`, before it is opened:
/// opening a FIFO for reading blocks until a writer appears, and a device such
/// as `/dev/zero` reports size 0 and never ends. The file is then opened
/// non-blocking and checked again on the open handle (it may have been replaced
/// in between), and the size limit is enforced while reading (`/proc` files
/// report size 0 and may be endless).
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    read_open(path, limit, what)
}

/// [`read_bounded`] as text: invalid UTF-8 is replaced (`U+FFFD`), as for
/// source lines shown in reports.
pub fn read_bounded_text_lossy(path: &Path, limit: u64, what: &str) -> Result<String, String> {
    read_bounded(path, limit, what).map(|b| match String::from_utf8(b) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// [`read_bounded`] as UTF-8 text (an error otherwise), for files irlint parses.
pub fn read_bounded_text(path: &Path, limit: u64, what: &str) -> Result<String, String> {
    read_bounded(path, limit, what).and_then(|b| {
        String::from_utf8(b).map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
    })
}

/// [`read_bounded`] without the `stat` before the `open`, for a path that a
/// directory listing gave as a regular file (the open handle is still checked).
pub fn read_open(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let (f, declared) = open_regular(path, limit, what)?;
    read_rest(f, declared, limit, what)
}

/// Opens a file as [`read_open`] does (non-blocking, checked on the handle)
/// and returns the handle and its size from `fstat`, refusing a file over
/// `limit`: for a caller that maps large files instead of reading them.
pub fn open_regular(path: &Path, limit: u64, what: &str) -> Result<(std::fs::File, u64), String> {
    let f = open_nonblocking(path).map_err(|e| format!("cannot read: {e}"))?;
    let meta = f.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let declared = meta.len();
    if declared > limit {
        return Err(format!("file is {declared} bytes, over the {limit}-byte {what} limit"));
    }
    Ok((f, declared))
}

/// Reads the rest of a handle [`open_regular`] gave, within `limit`.
pub fn read_rest(f: std::fs::File, declared: u64, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    let bytes = read_to_end(f, declared, limit).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("file is over the {limit}-byte {what} limit"));
    }
    Ok(bytes)
}

/// Reads the file with one `read` in the common case: exactly the size that
/// `fstat` reported, into a buffer of that capacity (not zeroed first). A file
/// that shrank ends early; bytes appended after the `fstat` are not read. Size
/// 0 (procfs and the like) reads until `read` returns 0, within the limit.
fn read_to_end(f: std::fs::File, declared: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    let take = if declared == 0 { limit.saturating_add(1) } else { declared };
    let mut bytes = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    f.take(take).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// "not a regular file (a FIFO)": the refusal for special files.
pub fn not_regular(meta: &std::fs::Metadata) -> String {
    let ft = meta.file_type();
    let what = if ft.is_dir() { "a directory" } else { special_kind(&ft) };
    format!("not a regular file ({what}); only regular files are read")
}

#[cfg(unix)]
fn special_kind(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}
