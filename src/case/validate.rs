//! Checks a parsed case beyond what serde checks: JSON texts parse, each reply has one body
//! form, options that contradict each other are named. JSON texts are made compact here, once,
//! so the wire server sends them as they are.

use super::auth::{Auth, Prm, StartToken, TokenReply};
use super::http::{HTTP_DATE, MAX_HTTP_DATE_OFFSET, has_body, http_date_offset};
use super::model::{Call, CaseFile, DEFAULT_TIMEOUT_MS, Expect};
use super::problem::{Problem, bounded, json_text};
use super::reply::{End, Event, MAX_REPEAT, Reply};
use super::stdio::{Transport, validate_stdio_reply};
use crate::era::{Era, KNOWN_VERSIONS, MODERN_VERSION};
use crate::outcome::{Layer, Outcome};

/// Validates `file` and compacts its JSON texts in place.
pub fn validate(file: &mut CaseFile) -> Result<(), Problem> {
    if !KNOWN_VERSIONS.contains(&file.protocol_version.as_str()) {
        let known = KNOWN_VERSIONS.join(", ");
        let msg = format!(
            "unknown version {:?}; use one of {known}",
            file.protocol_version
        );
        return Err(("protocol_version".into(), msg));
    }
    one_line(&file.summary).map_err(|msg| ("summary".to_owned(), msg))?;
    for (k, link) in file.spec.iter().enumerate() {
        if link.trim().is_empty() {
            let msg = "an empty link: give the URL of the spec text, or remove the entry";
            return Err((format!("spec[{k}]"), msg.into()));
        }
    }
    if file.tool.name.is_empty() {
        let msg = "a tool needs a name; leave out `name` for the default \"synthetic\"";
        return Err(("tool.name".into(), msg.into()));
    }
    if let Some(schema) = &file.tool.output_schema {
        let object = schema.get("type").and_then(toml::Value::as_str) == Some("object");
        if !object {
            let msg = "an output schema describes `structuredContent`, a JSON object: give it \
                       `type = \"object\"`";
            return Err(("tool.output_schema".into(), msg.into()));
        }
    }
    if file.call.is_empty() {
        let msg = "a case needs at least one [[call]] table".to_owned();
        return Err(("call".into(), msg));
    }
    match (&mut file.auth, file.transport) {
        (Some(_), Transport::Stdio) => {
            let msg = "authorization is HTTP's: \"Implementations using an STDIO transport \
                       SHOULD NOT follow this specification\" (basic/authorization); remove \
                       [auth] or serve the case over HTTP";
            return Err(("auth".into(), msg.into()));
        }
        (Some(auth), Transport::Http) => validate_auth(auth)?,
        (None, _) => {
            let counts_auth = |c: &Call| {
                [&c.expect]
                    .into_iter()
                    .chain(&c.expect_session)
                    .any(|e| e.token_posts.is_some() || e.authorizations.is_some())
            };
            if let Some(i) = file.call.iter().position(counts_auth) {
                let msg = "token_posts and authorizations count requests to the authorization \
                           server, which only a case with an [auth] table has: add one, or \
                           drop them";
                return Err((format!("call[{i}].expect"), msg.into()));
            }
        }
    }
    let modern = Era::of(&file.protocol_version) == Some(Era::Stateless);
    let transport = file.transport;
    for (i, call) in file.call.iter_mut().enumerate() {
        let at = |(key, msg): Problem| (format!("call[{i}].{key}"), msg);
        match transport {
            Transport::Http => validate_call(call, modern).map_err(at)?,
            Transport::Stdio => validate_stdio_call(call, modern).map_err(at)?,
        }
    }
    Ok(())
}

/// `summary` is one line that says something: reports show it after the case id.
fn one_line(summary: &str) -> Result<(), String> {
    if summary.trim().is_empty() {
        return Err("empty: say in one line what the server does".into());
    }
    match summary.chars().find(char::is_ascii_control) {
        Some(c) => Err(format!(
            "contains {}: a summary is one line of text; say more in a comment",
            codepoint(c)
        )),
        None => Ok(()),
    }
}

/// `U+000A` for a character in a message.
fn codepoint(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

fn validate_call(call: &mut Call, modern: bool) -> Result<(), Problem> {
    validate_arguments(call)?;
    validate_timing(call)?;
    if call.reply.is_empty() {
        let msg = "a call needs at least one [[call.reply]] table".to_owned();
        return Err(("reply".into(), msg));
    }
    if !call.stdio.is_empty() {
        let msg = "[[call.stdio]] answers a stdio case: set `transport = \"stdio\"` at the top, \
                   or use [[call.reply]]"
            .to_owned();
        return Err(("stdio".into(), msg));
    }
    for (j, reply) in call.reply.iter_mut().enumerate() {
        validate_reply(reply).map_err(|(key, msg)| (format!("reply[{j}].{key}"), msg))?;
    }
    for (j, reply) in call.resume.iter_mut().enumerate() {
        validate_reply(reply).map_err(|(key, msg)| (format!("resume[{j}].{key}"), msg))?;
    }
    validate_expect(&call.expect).map_err(|(key, msg)| (format!("expect.{key}"), msg))?;
    validate_expect_session(call, modern)?;
    // 2026-07-28 streams are not resumable: the replies can only be bait for a client that
    // resumes anyway, and then the case must say it expects none.
    if modern && !call.resume.is_empty() && call.expect.resumes != Some(0) {
        let msg = format!(
            "{MODERN_VERSION} streams are not resumable, so a correct client never uses these \
             replies: name expect.resumes = 0 to check that it does not resume, set a 2025 \
             protocol_version, or remove [[call.resume]]"
        );
        return Err(("resume".into(), msg));
    }
    Ok(())
}

/// `expect_session`: only in a 2026-07-28 case (a 2025 case's `expect` is the session's), a
/// valid expectation, and one that differs from `expect` (else it says nothing).
fn validate_expect_session(call: &Call, modern: bool) -> Result<(), Problem> {
    let Some(session) = &call.expect_session else {
        return Ok(());
    };
    let key = "expect_session";
    if !modern {
        let msg = format!(
            "only a {MODERN_VERSION} case has an expectation for a client that falls back to a \
             2025 session: in a 2025 case `expect` is already the session's; remove it"
        );
        return Err((key.into(), msg));
    }
    validate_expect(session).map_err(|(k, msg)| (format!("{key}.{k}"), msg))?;
    for (k, &ms) in session.min_gaps_ms.iter().enumerate() {
        bounded(&format!("{key}.min_gaps_ms[{k}]"), ms)?;
    }
    if *session == call.expect {
        let msg = "is the same as `expect`, which holds in either era when there is no \
                   `expect_session`; remove it"
            .to_owned();
        return Err((key.into(), msg));
    }
    Ok(())
}

/// The call's arguments: a JSON object, compacted.
fn validate_arguments(call: &mut Call) -> Result<(), Problem> {
    if let Some(arguments) = &mut call.arguments {
        let value = json_text(arguments).map_err(|msg| ("arguments".to_owned(), msg))?;
        if !value.is_object() {
            let msg = "the arguments must be a JSON object, like '{\"x\": 1}'".to_owned();
            return Err(("arguments".into(), msg));
        }
    }
    Ok(())
}

/// The call's timeout and expected gaps: bounded, and a timeout of at least 1 ms.
fn validate_timing(call: &Call) -> Result<(), Problem> {
    if call.timeout_ms == Some(0) {
        let msg =
            format!("must be at least 1; leave it out for the default ({DEFAULT_TIMEOUT_MS})");
        return Err(("timeout_ms".into(), msg));
    }
    if let Some(ms) = call.timeout_ms {
        bounded("timeout_ms", ms)?;
    }
    for (k, &ms) in call.expect.min_gaps_ms.iter().enumerate() {
        bounded(&format!("expect.min_gaps_ms[{k}]"), ms)?;
    }
    Ok(())
}

/// A call of a stdio case: `[[call.stdio]]` answers, no HTTP keys, an expectation a stdio
/// client can meet.
fn validate_stdio_call(call: &mut Call, modern: bool) -> Result<(), Problem> {
    validate_arguments(call)?;
    validate_timing(call)?;
    let http_keys = [
        ("reply", !call.reply.is_empty()),
        ("resume", !call.resume.is_empty()),
        ("task", call.uses_tasks()),
        ("target", call.target != super::model::Target::ToolsCall),
    ];
    if let Some((key, _)) = http_keys.iter().find(|(_, set)| *set) {
        let msg = format!(
            "`{key}` belongs to HTTP cases; a stdio case answers with [[call.stdio]] tables"
        );
        return Err(((*key).into(), msg));
    }
    if call.stdio.is_empty() {
        let msg = "a stdio call needs at least one [[call.stdio]] table".to_owned();
        return Err(("stdio".into(), msg));
    }
    for (j, reply) in call.stdio.iter_mut().enumerate() {
        validate_stdio_reply(reply).map_err(|(key, msg)| (format!("stdio[{j}].{key}"), msg))?;
    }
    validate_expect(&call.expect).map_err(|(key, msg)| (format!("expect.{key}"), msg))?;
    validate_stdio_expect(&call.expect).map_err(|(key, msg)| (format!("expect.{key}"), msg))?;
    validate_expect_session(call, modern)?;
    match &call.expect_session {
        Some(session) => validate_stdio_expect(session)
            .map_err(|(key, msg)| (format!("expect_session.{key}"), msg)),
        None => Ok(()),
    }
}

/// Over stdio there is no HTTP: no status, and none of the outcomes only HTTP can give.
fn validate_stdio_expect(expect: &Expect) -> Result<(), Problem> {
    let http_only = [
        Outcome::HttpError,
        Outcome::UnexpectedContentType,
        Outcome::NoResult,
        Outcome::StreamIncomplete,
    ];
    if http_only.contains(&expect.outcome) {
        let msg = format!(
            "{} needs HTTP; over stdio a process that exits or closes its stdout is \
             CONNECTION_ERROR",
            expect.outcome
        );
        return Err(("outcome".into(), msg));
    }
    if expect.status.is_some() || expect.resumes.is_some() {
        let key = if expect.status.is_some() {
            "status"
        } else {
            "resumes"
        };
        return Err((key.into(), "there is no HTTP over stdio: remove it".into()));
    }
    Ok(())
}

/// The expectation must be one a correct client can meet: an outcome that names a layer, a
/// status and a code the outcome can carry, counting keys that hold together.
fn validate_expect(expect: &Expect) -> Result<(), Problem> {
    let outcome = expect.outcome;
    if outcome == Outcome::UnclassifiedError {
        let msg = "UNCLASSIFIED_ERROR is what an adapter says when its client hides the layer; \
                   a case expects what a correct client reports: name the layer's outcome";
        return Err(("outcome".into(), msg.into()));
    }
    if let Some(status) = expect.status {
        status_fits(outcome, status).map_err(|msg| ("status".to_owned(), msg))?;
    }
    if expect.code.is_some() && !matches!(outcome, Outcome::JsonrpcError | Outcome::HttpError) {
        let msg = format!(
            "{outcome} carries no JSON-RPC code; only `JSONRPC_ERROR` and `HTTP_ERROR` (with a \
             JSON-RPC error body) do: drop `code` or change the outcome"
        );
        return Err(("code".into(), msg));
    }
    let needs_a_call = matches!(outcome.layer(), Layer::Interaction | Layer::Application)
        || outcome == Outcome::InvalidToolResult;
    for (key, posts) in [
        ("tool_posts", expect.tool_posts),
        ("max_tool_posts", expect.max_tool_posts),
    ] {
        if needs_a_call && posts == Some(0) {
            let msg = format!(
                "{outcome} is read from the answer to a tools/call, so it needs at least one \
                 tools/call POST: raise `{key}` or change the outcome"
            );
            return Err((key.into(), msg));
        }
    }
    if let (Some(posts), Some(most)) = (expect.tool_posts, expect.max_tool_posts)
        && posts > most
    {
        let msg = format!("tool_posts = {posts} can never be at most {most}; drop one of them");
        return Err(("max_tool_posts".into(), msg));
    }
    let gaps = u32::try_from(expect.min_gaps_ms.len()).unwrap_or(u32::MAX);
    match expect.tool_posts {
        Some(posts) if gaps >= posts.max(1) => {
            let msg = format!(
                "{gaps} gaps need at least {} tool_posts; name one gap per pair of POSTs",
                gaps + 1
            );
            Err(("min_gaps_ms".into(), msg))
        }
        None if gaps > 0 => {
            let msg = "name `tool_posts` too, so that every gap has two POSTs".to_owned();
            Err(("min_gaps_ms".into(), msg))
        }
        _ => Ok(()),
    }
}

/// Whether a client that reports `outcome` can report the HTTP status `status` with it.
fn status_fits(outcome: Outcome, status: u16) -> Result<(), String> {
    if !(100..=599).contains(&status) {
        return Err(format!("{status} is not an HTTP status (100-599)"));
    }
    let success = (200..300).contains(&status);
    let fits = match outcome {
        Outcome::ConnectionError => false,
        // 1xx answers are interim: a client waits for the final one.
        Outcome::HttpError => status >= 300,
        Outcome::UnclassifiedError => true,
        _ => success,
    };
    if fits {
        return Ok(());
    }
    Err(match outcome {
        Outcome::ConnectionError => {
            "CONNECTION_ERROR means no HTTP response came, so there is no status: drop `status`"
                .to_owned()
        }
        Outcome::HttpError => format!(
            "HTTP_ERROR is a final non-2xx status (300-599), and {status} is not: change the \
             status or the outcome"
        ),
        _ => format!(
            "{outcome} is never reported with a {status}: a non-2xx status is HTTP_ERROR (the \
             transport layer decides first); use a 2xx status or expect HTTP_ERROR"
        ),
    })
}

pub(super) fn validate_reply(reply: &mut Reply) -> Result<(), Problem> {
    bounded("delay_ms", reply.delay_ms)?;
    bounded("event_gap_ms", reply.event_gap_ms)?;
    let forms = [
        reply.json.is_some(),
        reply.raw.is_some(),
        !reply.event.is_empty(),
    ];
    if forms.iter().filter(|&&f| f).count() > 1 {
        let msg = "give at most one body form: `json`, `raw` or [[call.reply.event]]".to_owned();
        return Err(("json".into(), msg));
    }
    match reply.status {
        None => validate_silent_reply(reply)?,
        Some(status) if !(100..=599).contains(&status) => {
            return Err((
                "status".into(),
                format!("{status} is not an HTTP status (100-599)"),
            ));
        }
        Some(status) if !has_body(status) && forms.contains(&true) => {
            let msg =
                format!("HTTP {status} never carries a body; remove the body or change the status");
            return Err(("status".into(), msg));
        }
        Some(_) => {}
    }
    if reply.cut_after.is_some() && reply.end != End::Complete {
        let msg = "`cut_after` closes the connection itself; drop `end`".to_owned();
        return Err(("cut_after".into(), msg));
    }
    validate_headers(reply)?;
    if let Some(json) = &mut reply.json {
        json_text(json).map_err(|msg| ("json".to_owned(), msg))?;
    }
    for (k, event) in reply.event.iter_mut().enumerate() {
        validate_event(event).map_err(|(key, msg)| (format!("event[{k}].{key}"), msg))?;
    }
    Ok(())
}

/// A reply without a status line sends no bytes, so anything about a response is a mistake.
fn validate_silent_reply(reply: &Reply) -> Result<(), Problem> {
    let has_response_parts = reply.json.is_some()
        || reply.raw.is_some()
        || !reply.event.is_empty()
        || !reply.headers.is_empty()
        || reply.content_type.is_some()
        || reply.cut_after.is_some();
    if has_response_parts {
        let msg = "a reply without `status` sends no bytes: remove its body, headers and \
                   cut_after, or add a status";
        return Err(("status".into(), msg.into()));
    }
    if reply.end == End::Complete {
        let msg = "a reply without `status` must say how the connection ends: \
                   end = \"reset\", \"close\" or \"stall\"";
        return Err(("end".into(), msg.into()));
    }
    Ok(())
}

/// Headers the wire server writes itself, and what to use instead: a case that set one would
/// send it twice, or framing that contradicts the body.
const SERVER_HEADERS: [(&str, &str); 4] = [
    (
        "content-type",
        "set the Content-Type with the `content_type` key, so it is sent once",
    ),
    (
        "content-length",
        "the server frames the body itself and sends its length; to send fewer bytes than \
         announced, use `cut_after`",
    ),
    (
        "transfer-encoding",
        "the server frames the body itself (chunked for SSE and for an `end` other than \
         \"complete\"); to break the framing, use `end` or `cut_after`",
    ),
    (
        "connection",
        "the server sends `connection: close` itself when the body does not end normally \
         (`end`, `cut_after`); remove the header",
    ),
];

fn validate_headers(reply: &Reply) -> Result<(), Problem> {
    let mut seen = std::collections::HashSet::new();
    for (name, value) in &reply.headers {
        let problem = |msg: String| (format!("headers.{name}"), msg);
        header_problem(name, value).map_or(Ok(()), |msg| Err(problem(msg)))?;
        if !seen.insert(name.to_ascii_lowercase()) {
            let msg = "the same header twice (names ignore case): keep one of them".to_owned();
            return Err(problem(msg));
        }
    }
    if let Some(content_type) = &reply.content_type {
        field_value(content_type).map_err(|msg| ("content_type".to_owned(), msg))?;
    }
    Ok(())
}

/// Why a reply cannot carry the header `name: value`, if it cannot: one the wire server writes
/// itself, a name that is no HTTP token, a value with a control character, or a date
/// placeholder out of bounds. `record` and `import` leave such a header out, with a note.
pub fn header_problem(name: &str, value: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if let Some((_, instead)) = SERVER_HEADERS.iter().find(|(n, _)| *n == lower) {
        return Some((*instead).to_owned());
    }
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Some("not a valid HTTP header name: use letters, digits and `-`".into());
    }
    if let Err(msg) = field_value(value) {
        return Some(msg);
    }
    if value.starts_with(HTTP_DATE) && http_date_offset(value).is_none() {
        return Some(format!(
            "{value:?} is no date placeholder; write \"{HTTP_DATE}+N\" for N seconds from now"
        ));
    }
    if http_date_offset(value).is_some_and(|n| n > MAX_HTTP_DATE_OFFSET) {
        return Some(format!(
            "{value:?} is too far ahead; N is at most {MAX_HTTP_DATE_OFFSET} (a year)"
        ));
    }
    None
}

/// An HTTP field value holds no control character but tab (RFC 9110 §5.5): a line break would
/// end the header, and a NUL is refused or cut short by most clients.
fn field_value(value: &str) -> Result<(), String> {
    match value.chars().find(|&c| c.is_ascii_control() && c != '\t') {
        Some(c @ ('\r' | '\n')) => Err(format!(
            "a header value cannot contain a line break ({}): it would end the header; \
             put each header in its own key",
            codepoint(c)
        )),
        Some(c) => Err(format!(
            "contains {}, a control character no HTTP header value may hold: remove it",
            codepoint(c)
        )),
        None => Ok(()),
    }
}

fn validate_event(event: &mut Event) -> Result<(), Problem> {
    let fields = [
        event.data.is_some(),
        event.data_raw.is_some(),
        event.comment.is_some(),
    ];
    let count = fields.iter().filter(|&&f| f).count();
    if count != 1 {
        let msg = "an event needs exactly one of `data` (JSON text), `data_raw` or `comment`";
        return Err(("data".into(), msg.into()));
    }
    let has_fields = event.event.is_some() || event.id.is_some() || event.retry.is_some();
    if event.comment.is_some() && has_fields {
        let msg = "a comment is sent alone; put `event`, `id` and `retry` on a data event";
        return Err(("comment".into(), msg.into()));
    }
    for (key, value) in [
        ("event", &event.event),
        ("id", &event.id),
        ("comment", &event.comment),
    ] {
        if value.as_deref().is_some_and(|v| v.contains(['\r', '\n'])) {
            let msg =
                "cannot contain a line break: it would end the SSE field; keep it on one line";
            return Err((key.into(), msg.into()));
        }
    }
    if event.id.as_deref().is_some_and(|id| id.contains('\0')) {
        let msg = "an SSE client ignores an id with U+0000 in it (the event-stream rules), so it \
                   is never sent back as Last-Event-ID: remove the NUL";
        return Err(("id".into(), msg.into()));
    }
    if event.data_raw.as_deref().is_some_and(|d| d.contains('\r')) {
        let msg = "a `\\r` ends an SSE line too, so it would add a line the case does not show: \
                   write line breaks as `\\n`; each line becomes its own `data:` line";
        return Err(("data_raw".into(), msg.into()));
    }
    if let Some(retry) = event.retry {
        bounded("retry", retry)?;
    }
    if !(1..=MAX_REPEAT).contains(&event.times()) {
        let msg =
            format!("must be between 1 and {MAX_REPEAT}; leave it out to send the event once");
        return Err(("repeat".into(), msg));
    }
    if event.times() > 1 && event.id.is_some() {
        let msg = "an event id names one event: a repeated event cannot have one; drop `id` or \
                   `repeat`";
        return Err(("id".into(), msg.into()));
    }
    if let Some(data) = &mut event.data {
        json_text(data).map_err(|msg| ("data".to_owned(), msg))?;
    }
    if let Some(wait) = event.await_answer_ms {
        validate_await(event, wait)?;
    }
    Ok(())
}

/// `await_answer_ms` waits for the answer to one request the server sends: the event's data must
/// be that request, sent once.
fn validate_await(event: &Event, wait: u64) -> Result<(), Problem> {
    bounded("await_answer_ms", wait)?;
    if event.server_request().is_none() {
        let msg = "waits for the answer to a request: give `data` a JSON-RPC request with a \
                   `method` and an `id`, or drop `await_answer_ms`";
        return Err(("await_answer_ms".into(), msg.into()));
    }
    if event.times() > 1 {
        let msg = "a repeated request would reuse its id: drop `repeat` or `await_answer_ms`";
        return Err(("await_answer_ms".into(), msg.into()));
    }
    Ok(())
}

/// Validates `auth` (keys named from `auth.`).
fn validate_auth(auth: &mut Auth) -> Result<(), Problem> {
    for (key, value) in [
        ("expires_on_call", auth.expires_on_call),
        ("expires_after_call", auth.expires_after_call),
    ] {
        if value.is_some() && auth.access_token != StartToken::Valid {
            let msg = format!(
                "`{key}` says when a valid start token expires: use it with `access_token = \
                 \"valid\"`, or leave it out"
            );
            return Err((format!("auth.{key}"), msg));
        }
    }
    if auth.expires_on_call == Some(0) {
        let msg = "tools/call requests count from 1; a token refused from the start is \
                   `access_token = \"expired\"`";
        return Err(("auth.expires_on_call".into(), msg.into()));
    }
    if auth.expires_on_call.is_some() && auth.expires_after_call.is_some() {
        let msg = "a token expires once: name `expires_on_call` or `expires_after_call`";
        return Err(("auth.expires_after_call".into(), msg.into()));
    }
    if auth.scope.trim().is_empty() {
        let msg = "a granted scope: one or more space-separated scopes (`mcp:tools`)";
        return Err(("auth.scope".into(), msg.into()));
    }
    if let Some(status) = auth.prm_path_status
        && !(400..600).contains(&status)
    {
        let msg = format!("{status} is no refusal: give a 4xx or 5xx status, or leave it out");
        return Err(("auth.prm_path_status".into(), msg));
    }
    if auth.prm_path_status.is_some() && matches!(auth.prm, Prm::Path | Prm::None) {
        let msg = "the path-aware URL answers this status instead of the document, so the \
                   root URL must serve it: `prm = \"both\"` or `\"root\"`";
        return Err(("auth.prm_path_status".into(), msg.into()));
    }
    for (key, value) in [
        ("challenge", &auth.challenge),
        ("forbidden_challenge", &auth.forbidden_challenge),
    ] {
        let filled = value
            .replace("{resource_metadata}", "x")
            .replace("{scope}", "x");
        if let Some(msg) = header_problem("www-authenticate", &filled) {
            return Err((format!("auth.{key}"), msg));
        }
    }
    if let Some(reply) = &mut auth.unauthorized {
        if reply.status != Some(401) {
            let msg = "the answer to a request without a valid token: give it `status = 401`";
            return Err(("auth.unauthorized.status".into(), msg.into()));
        }
        validate_reply(reply).map_err(|(key, msg)| (format!("auth.unauthorized.{key}"), msg))?;
    }
    if let Some(scope) = &auth.scope_required
        && (scope.trim().is_empty() || scope.contains(' '))
    {
        let msg = "one scope the tool call needs (`mcp:write`)";
        return Err(("auth.scope_required".into(), msg.into()));
    }
    for (k, answer) in auth.token.iter().enumerate() {
        let issues = matches!(answer.answer, TokenReply::Issue | TokenReply::Rotate);
        if answer.expires_in.is_some() && !issues {
            let msg = "`expires_in` is the lifetime of an issued token: use it with `answer = \
                       \"issue\"` or `\"rotate\"`";
            return Err((format!("auth.token[{k}].expires_in"), msg.into()));
        }
    }
    Ok(())
}
