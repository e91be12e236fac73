//! Turns a case's scripted reply into a response for one `tools/call` request.

use super::date;
use super::placeholder::Placeholders;
use super::response::{Await, Body, Response};
use crate::case::{Event, Reply};
use std::time::{Duration, SystemTime};

/// The response `reply` describes, with placeholders filled from `placeholders`.
pub fn response(reply: &Reply, placeholders: &Placeholders) -> Response {
    let (body, implied_type) = body(reply, placeholders);
    let content_type = reply.content_type.as_deref().or(implied_type);
    let mut headers: Vec<(String, String)> = content_type
        .map(|t| ("content-type".to_owned(), t.to_owned()))
        .into_iter()
        .collect();
    let now = SystemTime::now() + Duration::from_millis(reply.delay_ms);
    headers.extend(
        reply
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), date::fill(v, now))),
    );
    Response {
        status: reply.status,
        headers,
        body,
        end: reply.end,
        cut_after: reply.cut_after,
        delay: Duration::from_millis(reply.delay_ms),
        event_gap: Duration::from_millis(reply.event_gap_ms),
        awaits: awaits(reply),
    }
}

/// The server requests among the reply's events whose answers it waits for, by the position of
/// the event that sends each (repeats counted).
fn awaits(reply: &Reply) -> Vec<Await> {
    let mut sent: usize = 0;
    let mut awaits = Vec::new();
    for event in &reply.event {
        sent = sent.saturating_add(event.times() as usize);
        let (Some(ms), Some(request)) = (event.await_answer_ms, event.server_request()) else {
            continue;
        };
        awaits.push(Await {
            after: sent - 1,
            id: request["id"].clone(),
            within: Duration::from_millis(ms),
        });
    }
    awaits
}

fn body(reply: &Reply, placeholders: &Placeholders) -> (Body, Option<&'static str>) {
    if let Some(json) = &reply.json {
        let bytes = placeholders.apply(json).into_bytes();
        return (Body::Fixed(bytes), Some("application/json"));
    }
    if let Some(raw) = &reply.raw {
        return (
            Body::Fixed(placeholders.apply(raw).into_bytes()),
            Some("application/json"),
        );
    }
    if !reply.event.is_empty() {
        let events = reply
            .event
            .iter()
            .flat_map(|e| (1..=e.times()).map(|n| render_event(e, &placeholders.nth(n))))
            .collect();
        return (Body::Events(events), Some("text/event-stream"));
    }
    (Body::Empty, None)
}

/// One SSE event as text: fields, one `data:` line per line of data, a blank line.
pub fn render_event(event: &Event, placeholders: &Placeholders) -> Vec<u8> {
    if let Some(comment) = &event.comment {
        return format!(": {comment}\n\n").into_bytes();
    }
    let mut text = String::new();
    if let Some(name) = &event.event {
        text.push_str(&format!("event: {name}\n"));
    }
    if let Some(id) = &event.id {
        text.push_str(&format!("id: {id}\n"));
    }
    if let Some(retry) = event.retry {
        text.push_str(&format!("retry: {retry}\n"));
    }
    let data = match (&event.data, &event.data_raw) {
        (Some(text), _) | (None, Some(text)) => placeholders.apply_to_event(text),
        (None, None) => Some(String::new()),
    };
    match data {
        Some(data) => {
            for line in data.split('\n') {
                text.push_str(&format!("data: {line}\n"));
            }
        }
        // The event's fields and bytes stay where the case put them, without a message.
        None => text.push_str(": progress not sent: the request has no progressToken\n"),
    }
    text.push('\n');
    text.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn placeholders() -> Placeholders {
        Placeholders::from_request(&json!({"id": 3}))
    }

    #[test]
    fn renders_fields_and_multi_line_data() {
        let event = Event {
            data_raw: Some("a\nb".into()),
            event: Some("message".into()),
            id: Some("e1".into()),
            retry: Some(500),
            ..Default::default()
        };
        let text = String::from_utf8(render_event(&event, &placeholders())).unwrap();
        assert_eq!(
            text,
            "event: message\nid: e1\nretry: 500\ndata: a\ndata: b\n\n"
        );
    }

    #[test]
    fn renders_comments_and_fills_data_placeholders() {
        let comment = Event {
            comment: Some("keep-alive".into()),
            ..Default::default()
        };
        assert_eq!(render_event(&comment, &placeholders()), b": keep-alive\n\n");
        let data = Event {
            data: Some(r#"{"id":"$id"}"#.into()),
            ..Default::default()
        };
        assert_eq!(
            render_event(&data, &placeholders()),
            b"data: {\"id\":3}\n\n"
        );
    }

    #[test]
    fn a_repeated_event_goes_out_that_many_times_numbered_from_one() {
        let reply = Reply {
            status: Some(200),
            event: vec![Event {
                data: Some(r#"{"progress":"$repeat"}"#.into()),
                repeat: Some(3),
                ..Default::default()
            }],
            ..Default::default()
        };
        let Body::Events(events) = body(&reply, &placeholders()).0 else {
            panic!("an SSE body");
        };
        let texts: Vec<String> = events
            .into_iter()
            .map(|e| String::from_utf8(e).unwrap())
            .collect();
        let want = [1, 2, 3].map(|n| format!("data: {{\"progress\":{n}}}\n\n"));
        assert_eq!(texts, want);
    }

    #[test]
    fn progress_goes_only_to_a_request_that_asked_for_it() {
        let progress = Event {
            id: Some("e1".into()),
            data: Some(r#"{"params":{"progressToken":"$progress_token"}}"#.into()),
            ..Default::default()
        };
        let asked = Placeholders::from_request(
            &json!({"id": 3, "params": {"_meta": {"progressToken": "t"}}}),
        );
        assert_eq!(
            render_event(&progress, &asked),
            b"id: e1\ndata: {\"params\":{\"progressToken\":\"t\"}}\n\n"
        );
        assert_eq!(
            render_event(&progress, &placeholders()),
            b"id: e1\n: progress not sent: the request has no progressToken\n\n"
        );
    }

    #[test]
    fn a_request_that_awaits_its_answer_is_found_by_its_position_among_the_events() {
        let ping = Event {
            data: Some(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#.into()),
            await_answer_ms: Some(250),
            ..Default::default()
        };
        let progress = Event {
            comment: Some("x".into()),
            repeat: Some(3),
            ..Default::default()
        };
        let reply = Reply {
            status: Some(200),
            event: vec![progress, ping],
            ..Default::default()
        };
        let want = Await {
            after: 3,
            id: json!("p"),
            within: Duration::from_millis(250),
        };
        assert_eq!(response(&reply, &placeholders()).awaits, vec![want]);
    }

    #[test]
    fn content_type_follows_the_body_form_unless_set() {
        let reply = Reply {
            status: Some(200),
            raw: Some("<html>".into()),
            ..Default::default()
        };
        let sent = response(&reply, &placeholders());
        assert_eq!(
            sent.headers,
            vec![("content-type".into(), "application/json".into())]
        );
        let html = Reply {
            content_type: Some("text/html".into()),
            ..reply
        };
        assert_eq!(response(&html, &placeholders()).headers[0].1, "text/html");
        let empty = Reply {
            status: Some(202),
            ..Default::default()
        };
        assert!(response(&empty, &placeholders()).headers.is_empty());
    }
}
