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
}

impl Capture {
    /// Parses `bytes`. Line ends may be CRLF or LF; a capture with no blank line is all head.
    pub fn parse(bytes: &[u8]) -> Result<Capture, CaptureError> {
        let (head, body) = split_head(bytes);
        let head = String::from_utf8_lossy(head);
        let mut lines = head.lines();
        let status = parse_status(lines.next().unwrap_or(""))?;
        let headers = lines
            .filter(|l| !l.trim().is_empty())
            .map(parse_header)
            .collect::<Result<Vec<_>, _>>()?;
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let chunked =
            header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let (body, end) = if chunked {
            dechunk(body)
        } else {
            let declared = header("content-length").and_then(|v| v.trim().parse::<usize>().ok());
            let end = if declared.is_some_and(|n| body.len() < n) {
                BodyEnd::Cut
            } else {
                BodyEnd::Complete
            };
            (
                body[..declared.map_or(body.len(), |n| n.min(body.len()))].to_vec(),
                end,
            )
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

/// Head and body split at the first blank line (CRLF CRLF or LF LF, whichever comes first).
fn split_head(bytes: &[u8]) -> (&[u8], &[u8]) {
    let crlf = find(bytes, b"\r\n\r\n").map(|i| (i, 4));
    let lf = find(bytes, b"\n\n").map(|i| (i, 2));
    match [crlf, lf].into_iter().flatten().min_by_key(|(i, _)| *i) {
        Some((i, len)) => (&bytes[..i], &bytes[i + len..]),
        None => (bytes, &[]),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
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
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

/// Decodes chunked framing; stops at the last chunk (complete) or where the framing breaks off
/// (cut), keeping every whole byte received.
fn dechunk(mut rest: &[u8]) -> (Vec<u8>, BodyEnd) {
    let mut body = Vec::new();
    loop {
        let Some(line_end) = find(rest, b"\n") else {
            return (body, BodyEnd::Cut);
        };
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let Ok(size) = usize::from_str_radix(size_text.trim().split(';').next().unwrap_or(""), 16)
        else {
            return (body, BodyEnd::Cut);
        };
        rest = &rest[line_end + 1..];
        if size == 0 {
            return (body, BodyEnd::Complete);
        }
        let taken = size.min(rest.len());
        body.extend_from_slice(&rest[..taken]);
        if taken < size {
            return (body, BodyEnd::Cut);
        }
        rest = &rest[taken..];
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .unwrap_or(rest);
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
