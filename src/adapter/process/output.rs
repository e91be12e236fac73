//! What an adapter program prints: lines on stdout, each bounded, and which of them count as
//! an observation.

use crate::observation::{AdapterReport, Observation};
use nix::errno::Errno;
use serde_json::Value;
use std::os::fd::AsFd;

/// The most stdout a call reads: an observation is one short line, more is garbage.
pub(super) const STDOUT_CAP: usize = 64 * 1024;
/// How much of a bad line a problem message shows.
const SHOWN: usize = 200;
/// One read from a pipe.
pub(super) const CHUNK: usize = 8 * 1024;

/// Whether `bytes` is only whitespace (a blank line is skipped, never a line of its own).
pub(super) fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

/// The non-blank lines of `bytes`; the last one need not end with a newline.
pub(super) fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !is_blank(line))
        .collect()
}

/// Whether `bytes` holds a complete (newline-terminated) non-blank line.
pub(super) fn has_line(bytes: &[u8]) -> bool {
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |end| end);
    !is_blank(&bytes[..complete])
}

/// Takes the first complete non-blank line off the front of `pending`, dropping blank ones.
pub(super) fn take_line(pending: &mut Vec<u8>) -> Option<Vec<u8>> {
    while let Some(end) = pending.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = pending.drain(..=end).collect();
        if !is_blank(&line) {
            return Some(line);
        }
    }
    None
}

/// Reads `line` as an observation or `{"unsupported": ...}`; the error says what is wrong and
/// shows the line.
pub(super) fn parse_report(line: &[u8]) -> Result<AdapterReport, String> {
    let value: Value = serde_json::from_slice(line)
        .map_err(|e| format!("stdout is not JSON ({e}): {}", shown(line)))?;
    report_of(value, line)
}

/// [`parse_report`] of `value`, the JSON of `line` (an answer whose request id was taken off).
pub(super) fn report_of(mut value: Value, line: &[u8]) -> Result<AdapterReport, String> {
    // Many JSON writers spell an absent optional field `null`; `detail` is a plain string in
    // the observation, so a null one counts as left out, like a null `status` or `code`.
    if let Some(object) = value.as_object_mut() {
        if object.get("detail").is_some_and(Value::is_null) {
            object.remove("detail");
        }
    }
    if let Ok(report) = serde_json::from_value(value.clone()) {
        return Ok(report);
    }
    // The untagged report's own error says only "did not match any variant": ask the
    // observation, the shape a line that is not `unsupported` should have, what is wrong.
    let why = match serde_json::from_value::<Observation>(value) {
        Err(e) => e.to_string(),
        Ok(_) => "not an observation".to_owned(),
    };
    Err(format!(
        "stdout is not an observation ({why}): {}",
        shown(line)
    ))
}

/// `bytes` for a message: as escaped text, the first [`SHOWN`] bytes only.
pub(super) fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
    let text = text.trim_end_matches('\n');
    match bytes.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{text:?} (and {more} more bytes)"),
        _ => format!("{text:?}"),
    }
}

/// Reads what is already in the non-blocking pipe `fd` into `into`, up to `cap` bytes in all.
/// Returns `true` when the pipe is at end of file (the writer closed it).
pub(super) fn read_available(fd: impl AsFd, into: &mut Vec<u8>, cap: usize) -> bool {
    let mut chunk = vec![0; CHUNK];
    while into.len() < cap {
        match nix::unistd::read(fd.as_fd(), &mut chunk) {
            Ok(0) => return true,
            Ok(n) => into.extend_from_slice(&chunk[..n]),
            Err(Errno::EINTR) => continue,
            Err(Errno::EAGAIN) => return false,
            Err(_) => return true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_skip_blanks_and_keep_an_unterminated_last_line() {
        assert_eq!(lines(b"\n a\n\r\nb"), [&b" a"[..], b"b"]);
        assert!(has_line(b"\n{}\n"));
        assert!(!has_line(b"\n\n{}"));
        let mut pending = b"\n\nfirst\nsecond".to_vec();
        assert_eq!(take_line(&mut pending).as_deref(), Some(&b"first\n"[..]));
        assert_eq!(take_line(&mut pending), None);
        assert_eq!(pending, b"second");
    }

    #[test]
    fn parse_errors_name_the_problem_and_show_the_bytes() {
        let garbage = parse_report(b"hello\n").unwrap_err();
        assert!(garbage.starts_with("stdout is not JSON ("), "{garbage}");
        assert!(garbage.ends_with(": \"hello\""), "{garbage}");
        let null_detail = parse_report(br#"{"outcome":"TIMEOUT","detail":null}"#);
        assert!(null_detail.is_ok(), "{null_detail:?}");
        let word = parse_report(br#"{"outcome":"FINE"}"#).unwrap_err();
        assert!(word.contains("unknown variant `FINE`"), "{word}");
        let long = shown(&[b'x'; 300]);
        assert!(long.ends_with("(and 100 more bytes)"), "{long}");
    }
}
