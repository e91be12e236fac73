//! Reading one HTTP/1.1 request off a connection.
//!
//! Only what MCP clients send is needed: a request line, headers, and a body framed by
//! Content-Length or chunked encoding. Limits keep a misbehaving client from exhausting memory.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 16 * 1024 * 1024;

/// One request as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `POST`, `GET`, ...
    pub method: HttpMethod,
    /// The request target (`/mcp`).
    pub path: String,
    /// Headers in arrival order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
}

impl Request {
    /// The first header with this (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the client asked to close the connection after this exchange.
    pub fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }

    /// Whether the body is chunked: the last coding the `Transfer-Encoding` names is
    /// `chunked` (compared as a whole word, so `xchunked` is not).
    pub fn is_chunked(&self) -> bool {
        self.transfer_codings()
            .last()
            .is_some_and(|coding| coding == "chunked")
    }

    /// The codings every `Transfer-Encoding` header names, in order, lowercased, without
    /// parameters.
    fn transfer_codings(&self) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(name, _)| name == "transfer-encoding")
            .flat_map(|(_, value)| value.split(','))
            .map(|coding| {
                coding
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .filter(|coding| !coding.is_empty())
            .collect()
    }

    /// Whether the request came with both a `Transfer-Encoding` and a `Content-Length`: its
    /// framing may be a smuggling attempt, so RFC 9112 §6.3 has the server close the connection
    /// after answering it.
    pub fn ambiguous_framing(&self) -> bool {
        self.header("transfer-encoding").is_some() && self.header("content-length").is_some()
    }
}

/// A request's HTTP method, as the request line named it; or none, for a request the server
/// could not read and refused. The record, the transcript and the reports show it as a word
/// (`POST`, or `?` for none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpMethod {
    /// The method the request line named.
    Named(String),
    /// The request could not be read as HTTP, or did not arrive in time: the server refused it
    /// (400, 408). Such a request says nothing about the client's choices.
    Unread,
}

impl HttpMethod {
    /// The method's word: as named, or `?` for an unread request.
    pub fn as_str(&self) -> &str {
        match self {
            HttpMethod::Named(method) => method,
            HttpMethod::Unread => "?",
        }
    }
}

impl std::fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for HttpMethod {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl From<&str> for HttpMethod {
    fn from(method: &str) -> Self {
        HttpMethod::Named(method.to_owned())
    }
}

impl PartialEq<str> for HttpMethod {
    fn eq(&self, other: &str) -> bool {
        matches!(self, HttpMethod::Named(method) if method == other)
    }
}

impl PartialEq<&str> for HttpMethod {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

/// Why no request could be read.
#[derive(Debug, thiserror::Error)]
pub enum RequestReadError {
    /// The peer closed the connection between requests (the normal end of keep-alive).
    #[error("connection closed")]
    Closed,
    /// The bytes are not an HTTP/1.1 request we accept.
    #[error("bad request: {0}")]
    Bad(String),
    /// The body is longer than the 16 MiB every reader allows (declared by its
    /// `Content-Length`, or the running total of its chunks). The body has not been read.
    #[error("body larger than 16 MiB")]
    TooLarge,
    /// The body fits the request limits, but the reader had no room to hold it now
    /// ([`read_request_with`]); the length it would have held.
    #[error("no room for a body of {0} bytes now")]
    NoRoom(usize),
    /// The socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Reads the next request, or `Closed` at a clean end of the connection.
pub async fn read_request<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Request, RequestReadError> {
    read_request_with(reader, |_| true).await
}

/// [`read_request`], asking `may_hold` before each part of the body is read: it gets the
/// body's total length so far with that part (the whole `Content-Length` at once, or the
/// running total of a chunked body) and says whether that much may be held. A `false` ends the
/// read with [`RequestReadError::NoRoom`]. A proxy uses it to bound what all its connections
/// hold together.
pub async fn read_request_with<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    may_hold: impl FnMut(usize) -> bool,
) -> Result<Request, RequestReadError> {
    let mut request = read_head(reader).await?;
    request.body = read_body_with(reader, &request, may_hold).await?;
    Ok(request)
}

/// The request line and headers of the next request, with an empty body (which
/// [`read_body_with`] then reads): for a server that bounds the head's time apart from the
/// body's. `Closed` at a clean end of the connection.
pub async fn read_head<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Request, RequestReadError> {
    let request_line = read_line(reader, true).await?;
    let mut parts = request_line.split(' ');
    let (Some(method), Some(path), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(RequestReadError::Bad(format!(
            "request line {request_line:?}"
        )));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(RequestReadError::Bad(format!(
            "unsupported version {version:?}"
        )));
    }
    let headers = read_headers(reader).await?;
    Ok(Request {
        method: HttpMethod::Named(method.to_owned()),
        path: path.to_owned(),
        headers,
        body: Vec::new(),
    })
}

async fn read_headers<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Vec<(String, String)>, RequestReadError> {
    let mut headers = Vec::new();
    let mut size = 0;
    loop {
        let line = read_line(reader, false).await?;
        if line.is_empty() {
            return Ok(headers);
        }
        size += line.len();
        if size > MAX_HEAD {
            return Err(RequestReadError::Bad("headers larger than 64 KiB".into()));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| RequestReadError::Bad(format!("header {line:?}")))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
}

/// The body of `request`, whose head [`read_head`] read, asking `may_hold` as
/// [`read_request_with`] says. A `Transfer-Encoding` whose codings are not just `chunked` is
/// refused (`Bad`, RFC 9112 §6.1: the body's length could not be known), whatever
/// `Content-Length` says.
pub async fn read_body_with<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    request: &Request,
    mut may_hold: impl FnMut(usize) -> bool,
) -> Result<Vec<u8>, RequestReadError> {
    let codings = request.transfer_codings();
    if let Some(other) = codings.iter().find(|coding| *coding != "chunked") {
        return Err(RequestReadError::Bad(format!(
            "transfer coding {other:?} is not supported: send the body with `Transfer-Encoding: \
             chunked` or a `Content-Length`"
        )));
    }
    if !codings.is_empty() {
        return read_chunked(reader, may_hold).await;
    }
    let length = content_length(request)?;
    if length > MAX_BODY {
        return Err(RequestReadError::TooLarge);
    }
    if !may_hold(length) {
        return Err(RequestReadError::NoRoom(length));
    }
    read_exact(reader, length).await
}

/// The body's length: 0 without a `Content-Length`. Several that disagree make the message's
/// framing ambiguous, so RFC 9112 §6.3 says reject it; identical repeats are one value.
fn content_length(request: &Request) -> Result<usize, RequestReadError> {
    let mut values = request
        .headers
        .iter()
        .filter(|(name, _)| name == "content-length")
        .map(|(_, value)| value.trim());
    let Some(first) = values.next() else {
        return Ok(0);
    };
    if let Some(other) = values.find(|v| *v != first) {
        return Err(RequestReadError::Bad(format!(
            "conflicting content-length headers {first:?} and {other:?}"
        )));
    }
    first
        .parse::<usize>()
        .map_err(|_| RequestReadError::Bad(format!("content-length {first:?}")))
}

async fn read_chunked<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    mut may_hold: impl FnMut(usize) -> bool,
) -> Result<Vec<u8>, RequestReadError> {
    let mut body = Vec::new();
    loop {
        let line = read_line(reader, false).await?;
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| RequestReadError::Bad(format!("chunk size {line:?}")))?;
        if size == 0 {
            // Trailers, if any, end with an empty line.
            while !read_line(reader, false).await?.is_empty() {}
            return Ok(body);
        }
        // Checked: a peer's chunk size can be anything up to usize::MAX.
        if body
            .len()
            .checked_add(size)
            .is_none_or(|total| total > MAX_BODY)
        {
            return Err(RequestReadError::TooLarge);
        }
        let total = body.len() + size;
        if !may_hold(total) {
            return Err(RequestReadError::NoRoom(total));
        }
        body.extend(read_exact(reader, size).await?);
        read_line(reader, false).await?;
    }
}

async fn read_exact<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    length: usize,
) -> Result<Vec<u8>, RequestReadError> {
    if length > MAX_BODY {
        return Err(RequestReadError::TooLarge);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    Ok(body)
}

/// One CRLF- or LF-terminated line without its terminator. EOF before any byte of the first
/// line of a request is a clean close; EOF anywhere else is an error.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    first: bool,
) -> Result<String, RequestReadError> {
    let mut line = Vec::new();
    let read = (&mut *reader)
        .take(MAX_HEAD as u64)
        .read_until(b'\n', &mut line)
        .await?;
    if read == 0 {
        return Err(if first {
            RequestReadError::Closed
        } else {
            RequestReadError::Bad("unexpected end".into())
        });
    }
    if line.last() != Some(&b'\n') {
        return Err(RequestReadError::Bad(
            "line too long or unterminated".into(),
        ));
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line).map_err(|_| RequestReadError::Bad("header bytes are not UTF-8".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unread_method_is_a_question_mark_and_equals_no_named_one() {
        assert_eq!(HttpMethod::Unread.to_string(), "?");
        assert_eq!(serde_json::to_value(HttpMethod::Unread).unwrap(), "?");
        assert!(HttpMethod::Unread != "?" && HttpMethod::Named("POST".into()) == "POST");
    }

    async fn parse(bytes: &[u8]) -> Result<Request, RequestReadError> {
        let mut reader = tokio::io::BufReader::new(bytes);
        read_request(&mut reader).await
    }

    #[tokio::test]
    async fn reads_a_content_length_post() {
        let raw = b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nMCP-Protocol-Version: 1\r\n\r\n{}";
        let request = parse(raw).await.unwrap();
        assert_eq!(
            (request.method.as_str(), request.path.as_str()),
            ("POST", "/mcp")
        );
        assert_eq!(request.header("mcp-protocol-version"), Some("1"));
        assert_eq!(request.body, b"{}");
    }

    #[tokio::test]
    async fn reads_a_chunked_body_with_lf_only_lines() {
        let raw = b"POST /mcp HTTP/1.1\nTransfer-Encoding: chunked\n\n2\n{\"\n3;x=y\na\"}\n0\n\n";
        assert_eq!(parse(raw).await.unwrap().body, b"{\"a\"}");
    }

    #[tokio::test]
    async fn a_clean_close_is_not_an_error_but_a_cut_request_is() {
        assert!(matches!(parse(b"").await, Err(RequestReadError::Closed)));
        assert!(matches!(
            parse(b"POST /mcp HTTP/1.1\r\n").await,
            Err(RequestReadError::Bad(_))
        ));
        let short_body = b"POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\n{}";
        assert!(matches!(
            parse(short_body).await,
            Err(RequestReadError::Io(_))
        ));
    }

    #[tokio::test]
    async fn rejects_garbage() {
        assert!(matches!(
            parse(b"hello\r\n\r\n").await,
            Err(RequestReadError::Bad(_))
        ));
        assert!(matches!(
            parse(b"GET / SPDY/3\r\n\r\n").await,
            Err(RequestReadError::Bad(_))
        ));
        let bad_len = b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n";
        assert!(matches!(
            parse(bad_len).await,
            Err(RequestReadError::Bad(_))
        ));
    }

    #[tokio::test]
    async fn a_chunk_size_that_overflows_is_a_bad_request_not_a_panic() {
        let raw =
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\nffffffffffffffff\r\n";
        let err = parse(raw).await.unwrap_err();
        assert!(matches!(err, RequestReadError::TooLarge), "{err}");
        assert_eq!(err.to_string(), "body larger than 16 MiB");
    }

    #[tokio::test]
    async fn an_unknown_transfer_coding_is_refused_even_with_a_content_length() {
        for coding in ["xchunked", "gzip, chunked", "chunked, gzip", "identity"] {
            let raw = format!(
                "POST / HTTP/1.1\r\nTransfer-Encoding: {coding}\r\nContent-Length: 2\r\n\r\n{{}}"
            );
            let err = parse(raw.as_bytes()).await.unwrap_err();
            assert!(
                matches!(err, RequestReadError::Bad(ref why) if why.contains("is not supported")),
                "{coding}: {err}"
            );
        }
        let chunked = b"POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
        assert_eq!(parse(chunked).await.unwrap().body, b"{}");
    }

    #[tokio::test]
    async fn a_body_past_16_mib_is_too_large_before_any_of_it_is_read() {
        let raw = b"POST / HTTP/1.1\r\nContent-Length: 16777217\r\n\r\n";
        let mut asked = false;
        let mut reader = tokio::io::BufReader::new(&raw[..]);
        let err = read_request_with(&mut reader, |_| {
            asked = true;
            true
        })
        .await
        .unwrap_err();
        assert!(matches!(err, RequestReadError::TooLarge), "{err}");
        assert!(
            !asked,
            "the bound is the reader's, before any room is asked for"
        );
    }

    #[tokio::test]
    async fn conflicting_content_lengths_are_rejected_identical_ones_are_one() {
        let conflict = b"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}";
        let err = parse(conflict).await.unwrap_err();
        assert!(
            matches!(err, RequestReadError::Bad(ref why) if why.contains("conflicting")),
            "{err}"
        );
        let same = b"POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(parse(same).await.unwrap().body, b"{}");
    }
}
