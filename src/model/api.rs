//! The model APIs the scripted model speaks: which request is which, the tools and tool results
//! a request carries, and the replies it sends, one module per API.

mod anthropic;
mod chat;
mod gemini;
mod responses;

use serde_json::Value;

/// A model API, as the path of a request names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Api {
    /// Anthropic Messages: `POST …/v1/messages` (Claude Code).
    Anthropic,
    /// OpenAI Responses: `POST …/responses` (Codex CLI).
    Responses,
    /// OpenAI Chat Completions: `POST …/chat/completions` (Qwen Code, OpenCode, Copilot CLI,
    /// Continue).
    Chat,
    /// Gemini: `POST …/models/M:generateContent` or `:streamGenerateContent` (Gemini CLI).
    Gemini,
}

/// What a request is, by its method and path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// A conversation request of this API: a turn, or a side request (a title, a check) when
    /// the case's tool is not among its tools.
    Generate(Api),
    /// A token count (`…/messages/count_tokens`, `…:countTokens`).
    CountTokens(Api),
    /// A model list (`GET …/models`).
    Models,
    /// Anything else: answered 404.
    Unknown,
}

/// Which request `method path` is (a query string is ignored).
pub fn route(method: &str, path: &str) -> Route {
    let path = path.split('?').next().unwrap_or_default();
    let post = method.eq_ignore_ascii_case("POST");
    if method.eq_ignore_ascii_case("GET")
        && (path.ends_with("/models") || path.contains("/models/"))
    {
        return Route::Models;
    }
    if !post {
        return Route::Unknown;
    }
    if path.ends_with("/messages/count_tokens") {
        Route::CountTokens(Api::Anthropic)
    } else if path.ends_with("/messages") {
        Route::Generate(Api::Anthropic)
    } else if path.ends_with("/responses") {
        Route::Generate(Api::Responses)
    } else if path.ends_with("/chat/completions") {
        Route::Generate(Api::Chat)
    } else if path.ends_with(":countTokens") {
        Route::CountTokens(Api::Gemini)
    } else if path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent") {
        Route::Generate(Api::Gemini)
    } else {
        Route::Unknown
    }
}

/// A tool result as the agent put it in a request to the model.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolResult {
    /// The id of the call it answers, as the API links them (Gemini: the id if the agent sent
    /// one, else the function's name).
    pub call_id: String,
    /// Its text: the text parts joined by newlines, other parts named in brackets.
    pub text: String,
    /// The API's own error marking, where it has one: Anthropic's `is_error`, a Gemini
    /// `functionResponse.response` with an `error` key; `None` for an API without one.
    pub flagged: Option<bool>,
}

/// How a reply is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One JSON body.
    Json,
    /// Server-sent events.
    Sse,
    /// A JSON array of chunks (Gemini's `streamGenerateContent` without `alt=sse`).
    JsonArray,
}

/// What the model says in one turn.
#[derive(Debug, Clone, Copy)]
pub enum Reply<'a> {
    /// Call the tool `name` (the agent's name for it) with `arguments`, as call `id`.
    Call {
        /// The call's id.
        id: &'a str,
        /// The tool's name as the request listed it.
        name: &'a str,
        /// A JSON object.
        arguments: &'a Value,
    },
    /// End the turn with this text.
    Text(&'a str),
}

/// A reply's bytes and content type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub bytes: Vec<u8>,
}

impl Api {
    /// The names of the tools the request offers the model.
    pub fn tools(self, request: &Value) -> Vec<String> {
        match self {
            Api::Anthropic => anthropic::tools(request),
            Api::Responses => responses::tools(request),
            Api::Chat => chat::tools(request),
            Api::Gemini => gemini::tools(request),
        }
    }

    /// The tool results the request carries, in its order.
    pub fn results(self, request: &Value) -> Vec<ToolResult> {
        match self {
            Api::Anthropic => anthropic::results(request),
            Api::Responses => responses::results(request),
            Api::Chat => chat::results(request),
            Api::Gemini => gemini::results(request),
        }
    }

    /// How the reply to this request is framed.
    pub fn framing(self, path: &str, request: &Value) -> Framing {
        let streams = request.get("stream") == Some(&Value::Bool(true));
        match self {
            Api::Gemini if path.contains(":streamGenerateContent") => {
                match path.contains("alt=sse") {
                    true => Framing::Sse,
                    false => Framing::JsonArray,
                }
            }
            Api::Gemini => Framing::Json,
            _ if streams => Framing::Sse,
            _ => Framing::Json,
        }
    }

    /// The body that says `reply`, framed as `framing`; `request` is what it answers (a Chat
    /// request may ask for a usage chunk).
    pub fn reply(self, reply: Reply<'_>, framing: Framing, request: &Value) -> Body {
        match self {
            Api::Anthropic => anthropic::reply(reply, framing),
            Api::Responses => responses::reply(reply, framing),
            Api::Chat => chat::reply(reply, framing, request),
            Api::Gemini => gemini::reply(reply, framing),
        }
    }

    /// The answer to a token count.
    pub fn count_tokens(self) -> Value {
        match self {
            Api::Gemini => serde_json::json!({"totalTokens": 1}),
            _ => serde_json::json!({"input_tokens": 1}),
        }
    }
}

/// The model list: one model, in a shape that both OpenAI's and Anthropic's clients read.
pub fn models() -> Value {
    serde_json::json!({
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "type": "model", "created": 0,
                  "owned_by": "mcp-error-layers", "display_name": MODEL,
                  "created_at": "2026-01-01T00:00:00Z"}],
        "models": [{"name": format!("models/{MODEL}"), "displayName": MODEL,
                    "supportedGenerationMethods": ["generateContent", "countTokens"]}],
        "has_more": false,
        "first_id": MODEL,
        "last_id": MODEL
    })
}

/// The model's name in its answers.
pub const MODEL: &str = "scripted";

/// The text of a content value: a string as it is; an array's text parts joined by newlines,
/// other parts named in brackets (`[image]`); an object's `text`.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().map(part_text).collect::<Vec<_>>().join("\n"),
        Value::Null => String::new(),
        other => part_text(other),
    }
}

fn part_text(part: &Value) -> String {
    if let Some(text) = part.get("text").and_then(Value::as_str) {
        return text.to_owned();
    }
    match part.get("type").and_then(Value::as_str) {
        Some(kind) => format!("[{kind}]"),
        None => part.to_string(),
    }
}

/// Server-sent events: each `(event name, data)` as one event.
pub(crate) fn sse<'a>(events: impl IntoIterator<Item = (Option<&'a str>, Value)>) -> Body {
    let mut text = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            text.push_str("event: ");
            text.push_str(name);
            text.push('\n');
        }
        text.push_str("data: ");
        text.push_str(&data.to_string());
        text.push_str("\n\n");
    }
    Body {
        content_type: "text/event-stream",
        bytes: text.into_bytes(),
    }
}

/// A JSON body.
pub(crate) fn json(value: &Value) -> Body {
    Body {
        content_type: "application/json",
        bytes: value.to_string().into_bytes(),
    }
}

/// A call's arguments as the JSON text the OpenAI APIs carry.
pub(crate) fn arguments_text(arguments: &Value) -> String {
    arguments.to_string()
}

#[cfg(test)]
mod tests;
