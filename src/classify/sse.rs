//! An incremental reader for `text/event-stream` bodies, following the WHATWG HTML
//! "Server-sent events" parsing rules.
//!
//! Feed it body chunks as they arrive, split anywhere (inside a line, between a CR and its LF,
//! inside a UTF-8 sequence); it returns the events each chunk completes. The events are the same
//! whatever the chunking.
//!
//! What it does, per the WHATWG rules:
//! - lines end in LF, CRLF or CR; a CR at the end of one chunk and an LF at the start of the next
//!   are one line ending;
//! - one UTF-8 byte order mark at the very start of the stream is dropped;
//! - lines starting with `:` are comments and are dropped (their bytes are never buffered, so a
//!   flood of keep-alive comments costs no memory);
//! - `field: value` lines: one space after the colon is stripped; a line without a colon is a
//!   field name with an empty value; fields other than `data`, `event`, `id` and `retry` are
//!   ignored; `id` values containing NUL are ignored; `retry` values that are not all ASCII digits
//!   are ignored;
//! - a blank line dispatches the event; an event with no `data` line at all is not dispatched
//!   (but its `id` and `retry` still take effect);
//! - an event still being read when the stream ends is never dispatched (there is no `finish`).
//!
//! Field values are decoded as UTF-8 with replacement characters, as the WHATWG rules decode the
//! whole stream.
//!
//! Memory is bounded: the reader buffers one line plus the data of one event, and gives up (see
//! [`SseReader::overflowed`]) once those exceed its limit.

/// The default cap on the bytes of one event (its data plus the line being read): 16 MiB.
pub const DEFAULT_EVENT_LIMIT: usize = 16 * 1024 * 1024;

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the last `event` field of the event, or `"message"` when it had none.
    pub event: String,
    /// The `data` lines, joined with `"\n"`. May be empty when the event had `data` lines with
    /// empty values (the 2025-11-25 "priming" event is `id: …` plus an empty `data:`).
    pub data: String,
    /// The last event ID when this event was dispatched. It persists across events, as in
    /// WHATWG's `lastEventId`; an `id` field with an empty value resets it to `None`.
    pub id: Option<String>,
    /// The `retry` value (milliseconds) given in this event's own lines, if any.
    pub retry: Option<u64>,
}

/// An incremental `text/event-stream` parser. See the [module docs](self) for the rules.
#[derive(Debug, Clone)]
pub struct SseReader {
    /// The bytes of the line being read (not yet terminated).
    line: Vec<u8>,
    /// The line being read is a comment: its bytes are dropped, not buffered.
    in_comment: bool,
    /// The last byte was a CR: an LF right after it belongs to the same line ending.
    after_cr: bool,
    /// No line has ended yet: the first line may start with a byte order mark.
    first_line: bool,
    /// The event being assembled.
    data: String,
    event_type: String,
    retry: Option<u64>,
    /// Stream-wide state that outlives single events.
    last_event_id: String,
    reconnection_time: Option<u64>,
    limit: usize,
    overflowed: bool,
}

impl Default for SseReader {
    fn default() -> Self {
        SseReader::new()
    }
}

impl SseReader {
    /// A reader with the [default event limit](DEFAULT_EVENT_LIMIT).
    pub fn new() -> Self {
        SseReader::with_limit(DEFAULT_EVENT_LIMIT)
    }

    /// A reader that gives up once one event (its data plus the line being read) exceeds
    /// `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        SseReader {
            line: Vec::new(),
            in_comment: false,
            after_cr: false,
            first_line: true,
            data: String::new(),
            event_type: String::new(),
            retry: None,
            last_event_id: String::new(),
            reconnection_time: None,
            limit,
            overflowed: false,
        }
    }

    /// Reads the next chunk of the stream; returns the events it completes, in order.
    ///
    /// After the reader has [overflowed](Self::overflowed) it ignores every further byte.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = chunk;
        while !rest.is_empty() && !self.overflowed {
            // The LF of a CRLF whose CR ended the previous line (possibly in the last chunk).
            if std::mem::take(&mut self.after_cr) {
                if let Some(tail) = rest.strip_prefix(b"\n") {
                    rest = tail;
                    continue;
                }
            }
            match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(at) => {
                    let (head, tail) = rest.split_at(at);
                    self.push_bytes(head);
                    self.after_cr = tail.first() == Some(&b'\r');
                    rest = tail.get(1..).unwrap_or_default();
                    events.extend(self.end_line());
                }
                None => {
                    self.push_bytes(rest);
                    rest = &[];
                }
            }
        }
        events
    }

    /// Whether an event grew past the limit. The reader then stops: it dispatches nothing more,
    /// and the stream can no longer be read correctly.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// The last event ID seen so far (from any event, dispatched or not), if not empty: what a
    /// client would send as `Last-Event-ID` when reconnecting.
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.last_event_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The latest `retry` value (milliseconds) seen so far, from any event.
    pub fn reconnection_time(&self) -> Option<u64> {
        self.reconnection_time
    }

    /// Appends bytes (with no line ending in them) to the line being read.
    fn push_bytes(&mut self, bytes: &[u8]) {
        if bytes.is_empty() || self.in_comment {
            return;
        }
        if self.line.is_empty() && bytes.first() == Some(&b':') {
            self.in_comment = true;
            return;
        }
        let size = self.line.len().saturating_add(self.data.len());
        if size.saturating_add(bytes.len()) > self.limit {
            self.overflow();
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn overflow(&mut self) {
        self.overflowed = true;
        self.line = Vec::new();
        self.data = String::new();
    }

    /// A line ended: interprets it, and returns the event a blank line dispatches.
    fn end_line(&mut self) -> Option<SseEvent> {
        let mut line = std::mem::take(&mut self.line);
        let was_comment = std::mem::take(&mut self.in_comment);
        if std::mem::take(&mut self.first_line) && line.starts_with(BOM) {
            line.drain(..BOM.len());
        }
        if was_comment || line.starts_with(b":") {
            return None;
        }
        if line.is_empty() {
            return self.dispatch();
        }
        let (name, value) = split_field(&line);
        self.apply_field(name, value);
        None
    }

    fn apply_field(&mut self, name: &[u8], value: &[u8]) {
        match name {
            b"data" => {
                self.data.push_str(&String::from_utf8_lossy(value));
                self.data.push('\n');
                // Lossy decoding can grow invalid bytes threefold, so check again here.
                if self.data.len() > self.limit {
                    self.overflow();
                }
            }
            b"event" => self.event_type = String::from_utf8_lossy(value).into_owned(),
            b"id" if !value.contains(&0) => {
                self.last_event_id = String::from_utf8_lossy(value).into_owned();
            }
            b"retry" => {
                if let Some(millis) = parse_retry(value) {
                    self.retry = Some(millis);
                    self.reconnection_time = Some(millis);
                }
            }
            _ => {}
        }
    }

    /// A blank line: dispatches the event if it had any data, then starts a new one.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let mut data = std::mem::take(&mut self.data);
        let event_type = std::mem::take(&mut self.event_type);
        let retry = self.retry.take();
        if data.is_empty() {
            return None;
        }
        data.pop(); // the LF appended after the last data line
        Some(SseEvent {
            event: if event_type.is_empty() {
                "message".to_owned()
            } else {
                event_type
            },
            data,
            id: self.last_event_id().map(str::to_owned),
            retry,
        })
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Splits `name: value` at the first colon, dropping one space after it; a line without a colon
/// is all name.
fn split_field(line: &[u8]) -> (&[u8], &[u8]) {
    match line.iter().position(|&b| b == b':') {
        Some(at) => {
            let (name, rest) = line.split_at(at);
            let value = rest.get(1..).unwrap_or_default();
            (name, value.strip_prefix(b" ").unwrap_or(value))
        }
        None => (line, &[]),
    }
}

/// A `retry` value: ASCII digits only. A value too large for `u64` is ignored like any other
/// unusable value.
fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str) -> SseEvent {
        SseEvent {
            event: "message".into(),
            data: data.into(),
            id: None,
            retry: None,
        }
    }

    fn read_all(stream: &[u8]) -> Vec<SseEvent> {
        SseReader::new().feed(stream)
    }

    #[test]
    fn parses_the_whatwg_line_rules() {
        let rows: &[(&str, &[u8], Vec<SseEvent>)] = &[
            ("LF", b"data: a\n\n", vec![event("a")]),
            ("CRLF", b"data: a\r\n\r\n", vec![event("a")]),
            ("CR only", b"data: a\r\r", vec![event("a")]),
            (
                "mixed endings",
                b"data: a\r\ndata: b\rdata: c\n\r\n",
                vec![event("a\nb\nc")],
            ),
            (
                "multi-line data",
                b"data: a\ndata: b\n\n",
                vec![event("a\nb")],
            ),
            ("no space after colon", b"data:a\n\n", vec![event("a")]),
            (
                "only one space stripped",
                b"data:  a\n\n",
                vec![event(" a")],
            ),
            ("comment lines", b": hi\ndata: a\n:\n\n", vec![event("a")]),
            ("comment is not a blank line", b"data: a\n: x\n", vec![]),
            ("no colon: empty value", b"data\n\n", vec![event("")]),
            ("empty data is dispatched", b"data:\n\n", vec![event("")]),
            ("no data: nothing", b"id: 1\nevent: x\n\n", vec![]),
            ("unknown fields", b"foo: bar\ndata: a\n\n", vec![event("a")]),
            ("field names are case-sensitive", b"Data: a\n\n", vec![]),
            (
                "trailing partial event",
                b"data: a\n\ndata: b\n",
                vec![event("a")],
            ),
            ("BOM at start", b"\xEF\xBB\xBFdata: a\n\n", vec![event("a")]),
            (
                "BOM before comment",
                b"\xEF\xBB\xBF: c\ndata: a\n\n",
                vec![event("a")],
            ),
            ("BOM later is kept", b"\n\xEF\xBB\xBFdata: a\n\n", vec![]),
            (
                "invalid UTF-8 replaced",
                b"data: \xFF\n\n",
                vec![event("\u{FFFD}")],
            ),
        ];
        for (name, stream, want) in rows {
            assert_eq!(&read_all(stream), want, "row {name:?}");
        }
    }

    #[test]
    fn carries_event_type_id_and_retry() {
        let events = read_all(b"event: progress\nid: 7\nretry: 250\ndata: a\n\ndata: b\n\n");
        let first = SseEvent {
            event: "progress".into(),
            data: "a".into(),
            id: Some("7".into()),
            retry: Some(250),
        };
        let second = SseEvent {
            id: Some("7".into()),
            ..event("b")
        };
        assert_eq!(events, vec![first, second]);
    }

    #[test]
    fn id_and_retry_rules() {
        let mut reader = SseReader::new();
        assert!(reader.feed(b"id: 3\nretry: 500\ndata:\n\n").len() == 1);
        assert_eq!(reader.last_event_id(), Some("3"));
        assert_eq!(reader.reconnection_time(), Some(500));
        reader.feed(b"id: a\0b\nretry: 5s\nretry: 99999999999999999999999\n\n");
        assert_eq!(reader.last_event_id(), Some("3"), "id with NUL ignored");
        assert_eq!(reader.reconnection_time(), Some(500), "bad retry ignored");
        reader.feed(b"id\n\n");
        assert_eq!(reader.last_event_id(), None, "empty id resets");
    }

    #[test]
    fn any_chunking_gives_the_same_events() {
        let stream: &[u8] =
            b"\xEF\xBB\xBF: keep-alive\r\nid: 1\r\ndata:\r\n\r\nevent: x\rdata: {\"a\":\r\ndata: 1}\r\r";
        let whole = read_all(stream);
        assert_eq!(whole.len(), 2, "the priming event and the message");
        for split in 0..=stream.len() {
            let (a, b) = stream.split_at(split);
            let mut reader = SseReader::new();
            let mut events = reader.feed(a);
            events.extend(reader.feed(b));
            assert_eq!(events, whole, "split at {split}");
        }
        let mut reader = SseReader::new();
        let bytewise: Vec<_> = stream.iter().flat_map(|b| reader.feed(&[*b])).collect();
        assert_eq!(bytewise, whole, "one byte at a time");
    }

    #[test]
    fn stops_at_the_limit() {
        let mut reader = SseReader::with_limit(16);
        assert_eq!(reader.feed(b"data: 1234\n\n"), vec![event("1234")]);
        assert!(reader.feed(b"data: 1234567890").is_empty());
        assert!(
            !reader.overflowed(),
            "16 bytes is at the limit, not past it"
        );
        assert!(reader.feed(b"1").is_empty());
        assert!(reader.overflowed());
        assert!(reader.feed(b"\n\ndata: a\n\n").is_empty());
    }

    #[test]
    fn comments_do_not_count_against_the_limit() {
        let mut reader = SseReader::with_limit(8);
        let long_comment = [b":".as_slice(), &[b'x'; 100], b"\ndata: a\n\n"].concat();
        assert_eq!(reader.feed(&long_comment), vec![event("a")]);
        assert!(!reader.overflowed());
    }
}
