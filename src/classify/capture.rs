//! Captured HTTP responses, as a person pastes them or a proxy logs them: a status line,
//! headers, a blank line and the body (chunked framing decoded). Feeds the classifier.

use super::{BodyEnd, Classification, classify};
use serde_json::Value;

/// One captured response, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The status code.
    pub status: u16,
    /// The Content-Type header, when present.
    pub content_type: Option<String>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// Whether the body is complete: a chunked body without its last chunk, or fewer bytes
    /// than Content-Length, is cut.
    pub end: BodyEnd,
}

/// Why a capture could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaptureError {
    /// The first line is not `HTTP/1.x NNN reason`.
    #[error("the first line is not an HTTP status line (like `HTTP/1.1 200 OK`): {0:?}")]
    StatusLine(String),
    /// A header line has no colon.
    #[error("header line {0:?} has no `:`")]
    Header(String),
    /// A Content-Length that is not a number of bytes.
    #[error(
        "Content-Length {0:?} is not a number of bytes, so where the body ends is unknown (a client rejects such a response, RFC 9112 §6.3); correct the value or remove the header"
    )]
    ContentLength(String),
    /// Two Content-Length values that disagree.
    #[error(
        "Content-Length {0:?} and {1:?} disagree, so where the body ends is unknown (a client rejects such a response, RFC 9112 §6.3); keep the right one"
    )]
    ContentLengths(String, String),
    /// A header (name, escaped) holding a control character (the byte).
    #[error(
        "header {0} holds the control character 0x{1:02x}, which no HTTP header may carry (RFC 9110 §5.5: a client rejects the response); remove it from the capture"
    )]
    Control(String, u8),
}

impl Capture {
    /// Parses `bytes`. Line ends may be CRLF, LF or a lone CR (as in SSE), in the head and in
    /// chunked framing; the head ends at the first empty line, and a capture without one is all
    /// head. A head a client would reject (a Content-Length that is not a number, or two that
    /// disagree; a control character in a header) is an error, not a guess.
    pub fn parse(bytes: &[u8]) -> Result<Capture, CaptureError> {
        let (lines, body) = split_head(bytes);
        let mut lines = lines.into_iter().map(String::from_utf8_lossy);
        let status = parse_status(&lines.next().unwrap_or_default())?;
        let headers = lines
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_header(&l))
            .collect::<Result<Vec<_>, _>>()?;
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let codings = header("transfer-encoding");
        // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3): a body whose last coding
        // is `chunked` (a whole word: not `xchunked`) is framed by its chunks; one with any other
        // coding runs to the connection's close, so the capture holds all of it.
        let (body, end) = if codings.as_deref().is_some_and(last_coding_is_chunked) {
            dechunk(body)
        } else if codings.is_some() {
            (body.to_vec(), BodyEnd::Complete)
        } else {
            match content_length(&headers)? {
                Some(n) if u64::try_from(body.len()).unwrap_or(u64::MAX) < n => {
                    (body.to_vec(), BodyEnd::Cut)
                }
                Some(n) => (
                    body[..usize::try_from(n).unwrap_or(body.len())].to_vec(),
                    BodyEnd::Complete,
                ),
                None => (body.to_vec(), BodyEnd::Complete),
            }
        };
        Ok(Capture {
            status,
            content_type: header("content-type"),
            body,
            end,
        })
    }

    /// What the reference classifier makes of this response to the request with `request_id`.
    pub fn classify(&self, request_id: &Value) -> Classification {
        classify(
            self.status,
            self.content_type.as_deref(),
            &self.body,
            self.end,
            request_id,
        )
    }
}

/// The head's lines and the body after the first empty line (all head without one).
fn split_head(bytes: &[u8]) -> (Vec<&[u8]>, &[u8]) {
    let mut lines = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (line, after) = match line_end(rest) {
            Some((at, len)) => (&rest[..at], &rest[at + len..]),
            None => (rest, &[][..]),
        };
        if line.is_empty() {
            return (lines, after);
        }
        lines.push(line);
        rest = after;
    }
    (lines, &[])
}

/// Where the first line end of `bytes` is, and its length: CRLF (2), LF or a lone CR (1).
fn line_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let at = bytes.iter().position(|&b| b == b'\n' || b == b'\r')?;
    let crlf = bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n');
    Some((at, if crlf { 2 } else { 1 }))
}

/// The declared body length, `None` without a Content-Length. RFC 9112 §6.3: a value that is
/// not digits, or values that disagree, leave the body's end unknown and make the response
/// invalid; identical repeats (also as a list, `5, 5`) are one value. A length too large for a
/// `u64` is larger than any capture, so it saturates (the body is then cut).
fn content_length(headers: &[(String, String)]) -> Result<Option<u64>, CaptureError> {
    let mut declared: Option<(u64, &str)> = None;
    let values = headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .map(|(_, value)| value.as_str());
    for value in values {
        for element in value.split(',').map(str::trim) {
            if element.is_empty() || !element.bytes().all(|b| b.is_ascii_digit()) {
                return Err(CaptureError::ContentLength(value.to_owned()));
            }
            let n = element.parse::<u64>().unwrap_or(u64::MAX);
            match declared {
                Some((first, text)) if first != n => {
                    return Err(CaptureError::ContentLengths(
                        text.to_owned(),
                        element.to_owned(),
                    ));
                }
                Some(_) => {}
                None => declared = Some((n, element)),
            }
        }
    }
    Ok(declared.map(|(n, _)| n))
}

fn parse_status(line: &str) -> Result<u16, CaptureError> {
    let mut parts = line.split_whitespace();
    let version = parts.next().unwrap_or("");
    let code = parts.next().and_then(|c| c.parse::<u16>().ok());
    match code {
        Some(code) if version.starts_with("HTTP/") && (100..=599).contains(&code) => Ok(code),
        _ => Err(CaptureError::StatusLine(line.to_owned())),
    }
}

fn parse_header(line: &str) -> Result<(String, String), CaptureError> {
    let (name, value) = line
        .split_once(':')
        .ok_or_else(|| CaptureError::Header(line.to_owned()))?;
    let name = name.trim();
    // A tab is whitespace in a field value; every other control character is invalid in a
    // field (RFC 9110 §5.5), and an HTTP client's parser rejects the whole head.
    if let Some(c) = line.chars().find(|&c| c.is_ascii_control() && c != '\t') {
        let byte = u8::try_from(c).unwrap_or(u8::MAX);
        return Err(CaptureError::Control(name.escape_debug().to_string(), byte));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// Whether the last coding of a `Transfer-Encoding` list is `chunked` (case-insensitive, a whole
/// coding: `gzip, chunked` is, `xchunked` and `chunked, gzip` are not).
fn last_coding_is_chunked(codings: &str) -> bool {
    codings
        .rsplit(',')
        .next()
        .is_some_and(|last| last.trim().eq_ignore_ascii_case("chunked"))
}

/// Decodes chunked framing; stops at the last chunk (complete) or where the framing breaks off
/// (cut), keeping every whole byte received.
fn dechunk(mut rest: &[u8]) -> (Vec<u8>, BodyEnd) {
    let mut body = Vec::new();
    loop {
        let Some((at, len)) = line_end(rest) else {
            return (body, BodyEnd::Cut);
        };
        let size_text = String::from_utf8_lossy(&rest[..at]);
        let Ok(size) = usize::from_str_radix(size_text.trim().split(';').next().unwrap_or(""), 16)
        else {
            return (body, BodyEnd::Cut);
        };
        rest = &rest[at + len..];
        if size == 0 {
            return (body, BodyEnd::Complete);
        }
        let taken = size.min(rest.len());
        body.extend_from_slice(&rest[..taken]);
        if taken < size {
            return (body, BodyEnd::Cut);
        }
        rest = &rest[taken..];
        if let Some((0, len)) = line_end(rest) {
            rest = &rest[len..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;
    use serde_json::json;

    fn outcome(text: &str) -> Outcome {
        Capture::parse(text.as_bytes())
            .unwrap()
            .classify(&json!(1))
            .outcome
    }

    #[test]
    fn reads_a_pasted_json_response_with_lf_line_ends() {
        let text = "HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"x\"}}";
        let capture = Capture::parse(text.as_bytes()).unwrap();
        assert_eq!(capture.classify(&json!(1)).code, Some(-32602));
        assert_eq!(outcome(text), Outcome::JsonrpcError);
    }

    #[test]
    fn decodes_chunked_sse_and_notices_a_missing_last_chunk() {
        let event = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n";
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
        let cut = format!("{head}{:x}\r\n{event}\r\n", event.len());
        assert_eq!(outcome(&cut), Outcome::StreamIncomplete);
        let capture = Capture::parse(format!("{cut}0\r\n\r\n").as_bytes()).unwrap();
        assert_eq!(capture.end, BodyEnd::Complete);
        assert_eq!(capture.body, event.as_bytes());
    }

    #[test]
    fn only_a_last_coding_of_chunked_is_chunked_framing() {
        let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}";
        let framed = format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len());
        for coding in ["chunked", "Chunked", "gzip, chunked"] {
            let text = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: {coding}\r\n\r\n{framed}"
            );
            let capture = Capture::parse(text.as_bytes()).unwrap();
            assert_eq!(capture.body, body.as_bytes(), "{coding}");
        }
        // Not chunked: the body runs to the close, whatever Content-Length says.
        for coding in ["xchunked", "chunked, gzip"] {
            let text = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: {coding}\r\ncontent-length: 3\r\n\r\n{body}"
            );
            let capture = Capture::parse(text.as_bytes()).unwrap();
            assert_eq!(capture.body, body.as_bytes(), "{coding}");
            assert_eq!(capture.end, BodyEnd::Complete, "{coding}");
        }
    }

    #[test]
    fn a_body_short_of_its_content_length_is_cut() {
        let text = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 99\r\n\r\n{\"jsonrpc\"";
        assert_eq!(outcome(text), Outcome::StreamIncomplete);
    }

    #[test]
    fn statuses_and_empty_bodies() {
        assert_eq!(
            outcome("HTTP/1.1 503 Service Unavailable\r\n\r\n"),
            Outcome::HttpError
        );
        assert_eq!(outcome("HTTP/1.1 202 Accepted\r\n\r\n"), Outcome::NoResult);
        assert_eq!(outcome("HTTP/1.1 202 Accepted"), Outcome::NoResult);
    }

    #[test]
    fn errors_name_the_bad_line() {
        let error = Capture::parse(b"hello\r\n\r\n").unwrap_err();
        assert!(error.to_string().contains("\"hello\""), "{error}");
        let error = Capture::parse(b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n").unwrap_err();
        assert_eq!(error, CaptureError::Header("no colon here".into()));
    }
}
