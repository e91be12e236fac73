//! The wire server's side of a stdio case (crate::stdio): it records what the case's stdio
//! server processes read and report, and answers each line with the actions that serve it: the
//! case's `[[call.stdio]]` answer for `tools/call`, the prelude's answer as a line otherwise.

use super::http::Request;
use super::placeholder::Placeholders;
use super::prelude;
use super::record::{Answerer, Arrival, Sent};
use super::reply_recorder::ReplyRecorder;
use super::response::Response;
use super::{Shared, response::Body};
use crate::case::{End, Line, PAD_PLACEHOLDER, Signal, StdioEnd, StdioReply};
use crate::era::Era;
use crate::stdio::Action;
use crate::stdio::action::paths;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Records a request of a stdio server process and answers it.
pub(super) fn dispatch(shared: &Shared, request: &Request) -> (ReplyRecorder, Response) {
    let target = request.path.split('?').next().unwrap_or_default();
    let line = target == paths::LINE;
    let message: Option<Value> = crate::json_text::value(&request.body);
    let method = message
        .as_ref()
        .filter(|_| line)
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str);
    let call = shared.call.load(Ordering::SeqCst);
    let script = shared.case.call.get(call);
    let at_ms = shared.recorder.elapsed_ms();
    let (number, pick) = shared.recorder.update(|record| {
        let answers = script.map_or(0, |s| s.stdio.len());
        let pick = (method == Some("tools/call"))
            .then(|| answers.checked_sub(1))
            .flatten()
            .map(|end| record.seen(call).tool_posts.min(end));
        let number = record.push(Arrival {
            at_ms,
            call,
            request,
            message: message.as_ref(),
            jsonrpc_method: method,
            admitted: true,
            reply: Sent {
                script_index: pick,
                ..Sent::default()
            },
        });
        (number, pick)
    });
    let reply = ReplyRecorder::new(Arc::clone(&shared.recorder), number);
    let (by, response) = match (target, pick, script, &message) {
        (paths::HOLD, ..) => (Answerer::Prelude, held()),
        (paths::LINE, Some(i), Some(script), Some(m)) => {
            let steps = scripted(&script.stdio[i], &Placeholders::from_request(m));
            (Answerer::Script, actions(&steps))
        }
        (paths::LINE, _, _, Some(m)) => (Answerer::Prelude, actions(&built_in(shared, m))),
        _ => (Answerer::Prelude, actions(&[])),
    };
    reply.answered_by(by, response.status);
    (reply, response)
}

/// The hold connection's answer: nothing, for as long as the process lives.
fn held() -> Response {
    Response {
        end: End::Stall,
        ..Response::default()
    }
}

fn actions(steps: &[Action]) -> Response {
    Response::json(200, serde_json::to_string(steps).unwrap_or_default())
}

/// The prelude's answer to a request as one line; nothing for a notification or a response.
fn built_in(shared: &Shared, message: &Value) -> Vec<Action> {
    let era = Era::of(&shared.case.protocol_version).unwrap_or(Era::Stateless);
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").cloned();
    // A 2025 server does not know `server/discover`; over stdio the answer must carry the id
    // (the HTTP prelude's is a 400 outside a session, with none).
    if let (Some("server/discover"), Some(id), Era::Session) = (method, &id, era) {
        let error = json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": "Method not found"}});
        return vec![Action::Write(format!("{error}\n"))];
    }
    let request = Request {
        method: super::http::HttpMethod::Named("POST".to_owned()),
        path: paths::LINE.to_owned(),
        headers: Vec::new(),
        body: Vec::new(),
    };
    let server = prelude::Server {
        tool: &shared.case.tool,
        tasks: false,
        era,
        session: "",
    };
    match prelude::answer(&request, Some(message), server).body {
        Body::Fixed(bytes) if !bytes.is_empty() => {
            let text = String::from_utf8_lossy(&bytes);
            vec![Action::Write(format!("{text}\n"))]
        }
        _ => Vec::new(),
    }
}

/// What the stdio server does for a scripted answer: wait, flood stderr, write the lines (in
/// pieces, or all at once), then end as the answer says.
pub fn scripted(reply: &StdioReply, placeholders: &Placeholders) -> Vec<Action> {
    let mut steps = Vec::new();
    if reply.delay_ms > 0 {
        steps.push(Action::SleepMs(reply.delay_ms));
    }
    if reply.stderr_bytes > 0 {
        steps.push(Action::Stderr(reply.stderr_bytes));
    }
    if reply.together {
        let all: String = reply.line.iter().map(|l| text(l, placeholders)).collect();
        steps.push(Action::Write(all));
    } else {
        for line in &reply.line {
            written(line, &text(line, placeholders), &mut steps);
        }
    }
    match reply.end {
        StdioEnd::Stay => {}
        StdioEnd::Exit => steps.push(Action::Exit(reply.exit_status())),
        StdioEnd::Kill => steps.push(Action::Kill(reply.signal.unwrap_or(Signal::Kill))),
        StdioEnd::CloseStdout => steps.push(Action::CloseStdout),
    }
    steps
}

/// One line's writes: a pause before it, then its pieces with the same pause between them.
fn written(line: &Line, text: &str, steps: &mut Vec<Action>) {
    for piece in pieces(text, line.split) {
        if line.gap_ms > 0 {
            steps.push(Action::SleepMs(line.gap_ms));
        }
        steps.push(Action::Write(piece.to_owned()));
    }
}

/// `text` in `n` pieces of about equal size, cut only between characters.
fn pieces(text: &str, n: u32) -> Vec<&str> {
    let n = usize::try_from(n.max(1)).unwrap_or(1);
    let size = text.len().div_ceil(n).max(1);
    let mut out = Vec::with_capacity(n);
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (piece, tail) = rest.split_at(cut);
        out.push(piece);
        rest = tail;
    }
    out
}

/// A line as written: placeholders filled, padded, with its newline unless it has none.
fn text(line: &Line, placeholders: &Placeholders) -> String {
    let body = line
        .json
        .as_deref()
        .or(line.raw.as_deref())
        .unwrap_or_default();
    let mut text = placeholders.apply(body);
    if let Some(pad_to) = line.pad_to {
        text = padded(&text, pad_to, line.newline);
    }
    if line.newline {
        text.push('\n');
    }
    text
}

/// Fills `"$pad"` with `x`s so that the line, newline included, is `pad_to` bytes long (or as
/// short as it can be, when the rest is longer already).
fn padded(text: &str, pad_to: u64, newline: bool) -> String {
    let rest = text.len() - PAD_PLACEHOLDER.len() + 2 + usize::from(newline);
    let target = usize::try_from(pad_to).unwrap_or(usize::MAX);
    let fill = "x".repeat(target.saturating_sub(rest));
    text.replacen(PAD_PLACEHOLDER, &format!("\"{fill}\""), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(toml_text: &str) -> StdioReply {
        toml::from_str(toml_text).unwrap()
    }

    fn id_7() -> Placeholders {
        Placeholders::from_request(&json!({"id": 7, "method": "tools/call"}))
    }

    #[test]
    fn a_response_line_gets_the_request_id_and_a_newline() {
        let r = reply("[[line]]\njson = '{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":{}}'\n");
        let steps = scripted(&r, &id_7());
        let want = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n".to_owned();
        assert_eq!(steps, vec![Action::Write(want)]);
    }

    #[test]
    fn a_split_line_is_written_in_pieces_with_pauses_and_ends_as_told() {
        let r = reply(
            "end = \"exit\"\nexit_code = 3\n[[line]]\nraw = \"abcdef\"\nsplit = 3\ngap_ms = 5\n",
        );
        let w = |s: &str| Action::Write(s.to_owned());
        let p = || Action::SleepMs(5);
        let want = vec![p(), w("abc"), p(), w("def"), p(), w("\n"), Action::Exit(3)];
        assert_eq!(scripted(&r, &id_7()), want);
    }

    #[test]
    fn together_writes_every_line_at_once() {
        let r = reply("together = true\n[[line]]\nraw = \"a\"\n[[line]]\nraw = \"b\"\n");
        assert_eq!(scripted(&r, &id_7()), vec![Action::Write("a\nb\n".into())]);
    }

    #[test]
    fn padding_makes_the_line_exactly_as_long_as_asked() {
        let r = reply("[[line]]\njson = '{\"t\":\"$pad\"}'\npad_to = 1000\n");
        let [Action::Write(line)] = &scripted(&r, &id_7())[..] else {
            panic!("one write")
        };
        assert_eq!(line.len(), 1000);
        assert!(line.ends_with("\"}\n"));
    }

    #[test]
    fn pieces_never_cut_a_character() {
        assert_eq!(pieces("ääää", 3).concat(), "ääää");
        assert!(pieces("ab", 5).len() <= 2);
    }
}
