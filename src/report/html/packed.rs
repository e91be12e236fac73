//! The cells' contents, packed. A matrix of every SDK row carries tens of megabytes of
//! transcripts and adapter logs: inline, they made a page too heavy to open. So the page
//! carries, gzipped and in base64, every distinct piece of the cells' markup once (a piece ends
//! after a line break or before a tag) and, per cell, the list of its pieces; `cells.js`
//! unpacks them in the browser (`DecompressionStream`) when a cell is first opened. No side
//! file: the page still works from `file://` and from a CI artifact store.
//!
//! Pieces rather than gzip alone, because gzip only finds a repeat within its last 32 KiB,
//! and the repeats here are far apart: the same server reply in every column of a row, the
//! same stderr line in every cell of an adapter's column. For the 36 SDK reports of today
//! that makes the packed contents about half as large as one gzip stream per column.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use flate2::Compression;
use flate2::write::GzEncoder;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io::{self, Write};

/// The page's one script: it unpacks a cell when it is opened, or when the address names it.
const SCRIPT: &str = include_str!("cells.js");

/// The most of one text (a transcript, an adapter's stderr) that a cell keeps, half from its
/// head and half from its tail: what a page weighs is bounded per cell, whatever an adapter
/// wrote.
const KEEP: usize = 8_000;

/// What the Content-Security-Policy allows to run: the page's script, by its digest.
pub(super) fn script_source() -> String {
    format!(
        "'sha256-{}'",
        BASE64.encode(Sha256::digest(SCRIPT.as_bytes()))
    )
}

/// `text`, or its head and tail if longer than `KEEP`, with how much was left out between.
pub(super) fn clip(text: &str) -> Cow<'_, str> {
    if text.len() <= KEEP {
        return Cow::Borrowed(text);
    }
    let head = &text[..boundary_at_or_before(text, KEEP / 2)];
    let tail = &text[boundary_at_or_before(text, text.len() - KEEP / 2)..];
    let left_out = text.len() - head.len() - tail.len();
    Cow::Owned(format!(
        "{head}\n[… {left_out} of {} bytes left out …]\n{tail}",
        text.len()
    ))
}

fn boundary_at_or_before(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The two data blocks for `cells` (each cell's markup, column after column, a row's cell
/// at `column × rows + row`; empty where a report lacks the case): `cell-pieces`, the
/// distinct pieces in byte order parted by NUL, and `cell-lists`, a line per cell with its
/// pieces' numbers in base 36. No piece holds a NUL: `esc` shows every control character of a
/// report's text as a visible one.
pub(super) fn cells(page: &mut String, cells: &[String]) {
    let split: Vec<Vec<&str>> = cells.iter().map(|cell| pieces(cell).collect()).collect();
    let distinct: BTreeSet<&str> = split.iter().flatten().copied().collect();
    let number: HashMap<&str, usize> = distinct.iter().enumerate().map(|(n, p)| (*p, n)).collect();
    let lists: Vec<String> = split
        .iter()
        .map(|pieces| {
            let numbers: Vec<String> = pieces.iter().map(|p| base36(number[p])).collect();
            numbers.join(" ")
        })
        .collect();
    let distinct: Vec<&str> = distinct.into_iter().collect();
    block(page, "cell-pieces", &distinct.join("\0"));
    block(page, "cell-lists", &lists.join("\n"));
}

/// `cell` cut after each line break and before each `<`; both are ASCII, so every cut falls
/// between characters.
fn pieces(cell: &str) -> impl Iterator<Item = &str> {
    let mut rest = cell;
    std::iter::from_fn(move || {
        let bytes = rest.as_bytes();
        let end = (1..bytes.len())
            .find(|&i| bytes[i - 1] == b'\n' || bytes[i] == b'<')
            .unwrap_or(bytes.len());
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        (!piece.is_empty()).then_some(piece)
    })
}

/// `n` in base 36, as JavaScript's `parseInt(text, 36)` reads it: shorter than decimal, and
/// the lists pack about a tenth smaller.
fn base36(mut n: usize) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut digits = Vec::new();
    loop {
        digits.push(DIGITS[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().map(|&d| char::from(d)).collect()
}

/// A data block the script reads by `id`: `text` gzipped, in base64. Writing into memory does
/// not fail; if it did, the block is empty and an opened cell says it cannot be shown.
fn block(page: &mut String, id: &str, text: &str) {
    let packed = gzip(text).map_or_else(|_| String::new(), |bytes| BASE64.encode(bytes));
    let _ = writeln!(
        page,
        "<script type=\"application/gzip\" id=\"{id}\">{packed}</script>"
    );
}

fn gzip(text: &str) -> io::Result<Vec<u8>> {
    let mut packed = GzEncoder::new(Vec::new(), Compression::best());
    packed.write_all(text.as_bytes())?;
    packed.finish()
}

/// The script, after the data blocks (it reads them and the rows when it starts).
pub(super) fn script(page: &mut String) {
    let _ = writeln!(page, "<script>{SCRIPT}</script>");
}

/// Every cell of a page this module packed, as its script unpacks them, column after column;
/// `None` when the page holds no packed cells (or they are damaged).
pub(super) fn unpack(page: &str) -> Option<Vec<String>> {
    let pieces = block_text(page, "cell-pieces")?;
    let pieces: Vec<&str> = pieces.split('\0').collect();
    let lists = block_text(page, "cell-lists")?;
    let piece =
        |n: &str| -> Option<&str> { pieces.get(usize::from_str_radix(n, 36).ok()?).copied() };
    lists
        .split('\n')
        .map(|list| {
            list.split(' ')
                .filter(|n| !n.is_empty())
                .map(piece)
                .collect()
        })
        .collect()
}

/// The text of the data block `id`, ungzipped.
fn block_text(page: &str, id: &str) -> Option<String> {
    use std::io::Read;
    let open = format!("<script type=\"application/gzip\" id=\"{id}\">");
    let start = page.find(&open)? + open.len();
    let end = start + page[start..].find("</script>")?;
    let bytes = BASE64.decode(&page[start..end]).ok()?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Every cell of `page` as its script unpacks them, column after column.
    pub(in crate::report) fn unpack(page: &str) -> Vec<String> {
        super::unpack(page).expect("the page holds packed cells")
    }

    #[test]
    fn a_short_text_is_kept_whole() {
        let text = "x".repeat(KEEP);
        assert!(matches!(clip(&text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn a_long_text_keeps_its_head_and_tail_and_says_how_much_is_left_out() {
        // Multi-byte characters across both cuts: no cut splits one.
        let text = format!("{}{}", "é".repeat(KEEP), "z".repeat(KEEP));
        let clipped = clip(&text);
        assert!(clipped.starts_with(&"é".repeat(KEEP / 4)));
        assert!(clipped.ends_with(&"z".repeat(KEEP / 2)));
        let left_out = text.len() - KEEP;
        let note = format!("\n[… {left_out} of {} bytes left out …]\n", text.len());
        assert!(clipped.contains(&note), "{clipped}");
    }

    #[test]
    fn pieces_end_after_a_line_break_or_before_a_tag() {
        let cut: Vec<&str> = pieces("<p>a é</p>\n<pre>x\ny</pre>").collect();
        assert_eq!(cut, ["<p>a é", "</p>\n", "<pre>x\n", "y", "</pre>"]);
        assert_eq!(pieces("").count(), 0);
    }

    #[test]
    fn numbers_are_written_in_base_36() {
        for n in [0, 9, 10, 35, 36, 1295, 1296, 46_655_usize] {
            assert_eq!(usize::from_str_radix(&base36(n), 36), Ok(n));
        }
        assert_eq!(base36(36 * 36 + 11), "10b");
    }

    #[test]
    fn cells_come_back_in_order_and_the_script_is_the_one_allowed() {
        let cells = [
            "<p>a</p>\n<p>b</p>",
            "",
            "<pre>\u{2400}\n</pre>",
            "<p>a</p>",
        ];
        let cells = cells.map(str::to_owned);
        let mut page = String::new();
        super::cells(&mut page, &cells);
        assert_eq!(unpack(&page), cells);
        script(&mut page);
        assert!(page.contains(&format!("<script>{SCRIPT}</script>")));
        assert_eq!(script_source().len(), "'sha256-'".len() + 44);
    }
}
