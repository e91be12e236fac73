//! An SSE body cut into its events as written: each block keeps its own bytes (its line ends,
//! CRLF or LF, included), so that a recording can be replayed, cut or stalled at an event
//! boundary without changing a byte.

/// One event (or comment) of an SSE body, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Its bytes, up to and including the blank line that ends it (absent for the last block
    /// of a body that was cut mid-event).
    pub text: String,
    /// Its `data` lines joined with `\n`, when it has any.
    pub data: Option<String>,
}

/// The blocks of `body`, in order. Line ends may be CRLF, LF or a lone CR (the SSE rule).
pub fn split(body: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut start = 0;
    let mut data: Option<String> = None;
    for (line, end) in lines(body) {
        if line.is_empty() {
            blocks.push(Block {
                text: body[start..end].to_owned(),
                data: data.take(),
            });
            start = end;
            continue;
        }
        if let Some(value) = field(line, "data") {
            match &mut data {
                Some(joined) => {
                    joined.push('\n');
                    joined.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    if start < body.len() {
        blocks.push(Block {
            text: body[start..].to_owned(),
            data,
        });
    }
    blocks
}

/// The value of `line` when it is the field `name` (`name:` then one optional space).
pub fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let value = line.strip_prefix(name)?.strip_prefix(':')?;
    Some(value.strip_prefix(' ').unwrap_or(value))
}

/// The lines of `body` without their ends, each with the offset just past its end.
pub fn lines(body: &str) -> Vec<(&str, usize)> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let end = match bytes[at] {
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => at + 2,
            b'\r' | b'\n' => at + 1,
            _ => {
                at += 1;
                continue;
            }
        };
        out.push((&body[start..at], end));
        start = end;
        at = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_keep_their_bytes_and_join_their_data() {
        let body =
            "event: message\r\ndata: {\"a\":1}\r\n\r\n: ping\n\ndata: x\ndata: y\n\ndata: cut";
        let blocks = split(body);
        assert_eq!(
            blocks.iter().map(|b| b.text.as_str()).collect::<String>(),
            body
        );
        assert_eq!(blocks[0].text, "event: message\r\ndata: {\"a\":1}\r\n\r\n");
        assert_eq!(blocks[0].data.as_deref(), Some("{\"a\":1}"));
        assert_eq!(blocks[1].data, None);
        assert_eq!(blocks[2].data.as_deref(), Some("x\ny"));
        assert_eq!(blocks[3].text, "data: cut");
    }
}
