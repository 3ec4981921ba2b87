//! Lines of a text: the byte offset where each starts, and line `n` without
//! its ending — for source lines shown in reports and suppression comments.

/// The byte offset where each line of `text` starts (one pass).
pub fn line_starts(text: &str) -> Vec<usize> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut starts = vec![0];
    starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
    if starts.len() > 1 && starts.last() == Some(&text.len()) {
        starts.pop();
    }
    starts
}

/// Line `n` (1-based) of `text`, whose [`line_starts`] are `starts`, without
/// its line ending (`\n` or `\r\n`), as `str::lines` gives it.
pub fn line_at<'a>(text: &'a str, starts: &[usize], n: u32) -> Option<&'a str> {
    let i = (n as usize).checked_sub(1)?;
    let start = *starts.get(i)?;
    let end = starts.get(i + 1).copied().unwrap_or(text.len());
    let raw = text.get(start..end)?;
    Some(raw.strip_suffix('\n').map_or(raw, |l| l.strip_suffix('\r').unwrap_or(l)))
}
