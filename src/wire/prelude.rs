//! Everything the server answers on its own, so that real clients reach the call under test:
//! the 2025 session handshake, notifications, `tools/list`, `server/discover`, GET and DELETE.

use super::http::Request;
use super::response::Response;
use crate::case::Tool;
use serde_json::{Value, json};

use crate::era::{Era, MODERN_VERSION, NEWEST_SESSION_VERSION};

/// What the prelude answers with: the case's tool, the era of the server the case stands for
/// (its `protocol_version`'s), and the session id an `initialize` gets.
#[derive(Debug, Clone, Copy)]
pub struct Server<'a> {
    /// The tool `tools/list` advertises.
    pub tool: &'a Tool,
    /// Whether the server advertises tasks: the 2025-11-25 `tasks` capability at `initialize`,
    /// the `io.modelcontextprotocol/tasks` extension at `server/discover`. Only a case whose
    /// calls use tasks does, so that every other case's answers stay as they were.
    pub tasks: bool,
    /// The era of the server: a 2025 one does not know `server/discover`.
    pub era: Era,
    /// The session id an `initialize` gets.
    pub session: &'a str,
}

/// The answer to a request that is not a scripted `tools/call`.
pub fn answer(request: &Request, message: Option<&Value>, server: Server<'_>) -> Response {
    match request.method.as_str() {
        "POST" => match message {
            Some(message) => answer_message(request, message, server),
            None => error(
                400,
                Value::Null,
                -32700,
                "Parse error: the body is not JSON",
            ),
        },
        // No standalone SSE stream: 405 is the spec's answer for both eras.
        "GET" => Response::empty(405).with_header("allow", "POST, DELETE"),
        "DELETE" => Response::empty(200),
        _ => Response::empty(405).with_header("allow", "POST, GET, DELETE"),
    }
}

fn answer_message(request: &Request, message: &Value, server: Server<'_>) -> Response {
    let Server {
        tool,
        tasks,
        era,
        session,
    } = server;
    let id = message.get("id").cloned();
    let method = message.get("method").and_then(Value::as_str);
    let (Some(method), Some(id)) = (method, id) else {
        // A notification or a client's response: accepted, nothing to say.
        return Response::empty(202);
    };
    let modern = is_modern(request, message);
    match method {
        "initialize" => initialize(id, message, session, tasks),
        "tools/list" => result(
            id,
            cacheable(json!({"tools": [advertised(tool)]}), modern),
            modern,
        ),
        "server/discover" if era == Era::Session => outside_session(),
        "server/discover" => result(id, cacheable(discover(tasks), true), true),
        // 2026-07-28 removed `ping`: a modern request for it is an unknown method.
        "ping" if !modern => result(id, json!({}), false),
        _ if modern => error(404, id, -32601, "Method not found"),
        _ => error(200, id, -32601, "Method not found"),
    }
}

/// A 2026-07-28 request carries its version in `_meta` and the header; a 2025 one does not.
fn is_modern(request: &Request, message: &Value) -> bool {
    let meta_version = message.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion");
    request.header("mcp-protocol-version") == Some(MODERN_VERSION) || meta_version.is_some()
}

fn initialize(id: Value, message: &Value, session: &str, tasks: bool) -> Response {
    let asked = message
        .pointer("/params/protocolVersion")
        .and_then(Value::as_str);
    let version = crate::era::negotiated(asked);
    let mut capabilities = json!({"tools": {}});
    // 2025-11-25 basic/utilities/tasks, "Capabilities": a client MUST NOT call a tool as a
    // task unless the server declares `tasks.requests.tools.call`. Older versions have none.
    if tasks && version == NEWEST_SESSION_VERSION {
        capabilities["tasks"] = json!({"cancel": {}, "requests": {"tools": {"call": {}}}});
    }
    let body = json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "serverInfo": server_info(),
    });
    result(id, body, false).with_header("mcp-session-id", session)
}

/// What a server of the 2025 era answers a request outside a session that is not `initialize`,
/// `server/discover` among them: the `400` of the TypeScript SDK 1.x's stateful server as its
/// example `simpleStreamableHttp` routes requests, recorded from `@modelcontextprotocol/sdk`
/// 1.32.2 (`tests/recorded/`). Its code is no modern one (-32020 to -32022), so a client that
/// probes 2026-07-28 first reads it as a 2025 server and falls back to `initialize`, as it
/// would against a real one. (The Python SDK 1.x answers `400` with -32600 "Bad Request:
/// Missing session ID", to the same effect.)
fn outside_session() -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"},
        "id": null,
    });
    let mut response = Response::json(400, body.to_string());
    response.headers = vec![(
        "content-type".into(),
        "application/json; charset=utf-8".into(),
    )];
    response
}

fn discover(tasks: bool) -> Value {
    let mut capabilities = json!({"tools": {}});
    // The tasks extension is advertised here and declared by the client per request (SEP-2663,
    // "Capability Negotiation").
    if tasks {
        capabilities["extensions"] = json!({TASKS_EXTENSION: {}});
    }
    json!({
        "supportedVersions": [MODERN_VERSION],
        "capabilities": capabilities,
        "serverInfo": server_info(),
    })
}

/// The identifier of the 2026-07-28 tasks extension (SEP-2663).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// 2026-07-28 (SEP-2549) makes list and discovery results say how long they may be cached;
/// SDKs that validate the schema reject a result without `ttlMs` and `cacheScope`. Nothing here
/// may be cached: every case serves its own tool.
fn cacheable(mut body: Value, modern: bool) -> Value {
    if modern {
        body["ttlMs"] = json!(0);
        body["cacheScope"] = json!("public");
    }
    body
}

fn server_info() -> Value {
    json!({"name": "mcp-error-layers-wire", "version": env!("CARGO_PKG_VERSION")})
}

/// The input schema of a tool that names none: an object with no properties, as the TypeScript
/// SDK and FastMCP list a tool without parameters. The spec's own no-parameter schemas leave
/// `properties` out (2025-11-25 server/tools.mdx, "Tool"), which some clients cannot read; a case
/// serves one of those on purpose (`tool/no-parameters-schema`), so that the other cases reach the
/// error they are about in those clients too.
fn no_parameters() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The tool as `tools/list` shows it.
pub fn advertised(tool: &Tool) -> Value {
    let schema = match &tool.input_schema {
        Some(table) => serde_json::to_value(table).unwrap_or_else(|_| no_parameters()),
        None => no_parameters(),
    };
    let mut entry = json!({
        "name": tool.name,
        "description": "A synthetic tool served by mcp-error-layers",
        "inputSchema": schema,
    });
    if !tool.annotations.is_empty() {
        entry["annotations"] = serde_json::to_value(&tool.annotations).unwrap_or(Value::Null);
    }
    if let Some(schema) = &tool.output_schema {
        entry["outputSchema"] = serde_json::to_value(schema).unwrap_or(Value::Null);
    }
    if let Some(support) = tool.task_support {
        entry["execution"] = json!({"taskSupport": support});
    }
    entry
}

fn result(id: Value, mut body: Value, modern: bool) -> Response {
    if modern {
        body["resultType"] = json!("complete");
    }
    Response::json(
        200,
        json!({"jsonrpc": "2.0", "id": id, "result": body}).to_string(),
    )
}

fn error(status: u16, id: Value, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    Response::json(status, body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::response::Body;

    fn post(headers: &[(&str, &str)], body: Value) -> (Request, Value) {
        let request = Request {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.to_string().into_bytes(),
        };
        (request, body)
    }

    /// A server of the 2026-07-28 era.
    fn on<'a>(tool: &'a Tool, session: &'a str) -> Server<'a> {
        Server {
            tool,
            tasks: false,
            era: Era::Stateless,
            session,
        }
    }

    fn body_json(response: &Response) -> Value {
        match &response.body {
            Body::Fixed(bytes) => serde_json::from_slice(bytes).unwrap(),
            other => panic!("not a JSON body: {other:?}"),
        }
    }

    #[test]
    fn initialize_echoes_a_session_version_and_mints_a_session() {
        let (req, msg) = post(
            &[],
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}),
        );
        let response = answer(&req, Some(&msg), on(&Tool::default(), "s-1"));
        assert!(
            response
                .headers
                .contains(&("mcp-session-id".into(), "s-1".into()))
        );
        assert_eq!(
            body_json(&response)["result"]["protocolVersion"],
            "2025-06-18"
        );
        let (req, msg) = post(
            &[],
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}),
        );
        let response = answer(&req, Some(&msg), on(&Tool::default(), "s-1"));
        assert_eq!(
            body_json(&response)["result"]["protocolVersion"],
            "2025-11-25"
        );
    }

    #[test]
    fn notifications_get_202_with_no_body() {
        let (req, msg) = post(
            &[],
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        );
        let response = answer(&req, Some(&msg), on(&Tool::default(), "s"));
        assert_eq!(response.status, Some(202));
        assert!(matches!(response.body, Body::Empty));
    }

    #[test]
    fn tools_list_advertises_the_case_tool_with_its_annotations() {
        let mut tool = Tool {
            name: "lookup".into(),
            ..Tool::default()
        };
        tool.annotations
            .insert("readOnlyHint".into(), toml::Value::Boolean(true));
        let (req, msg) = post(&[], json!({"jsonrpc":"2.0","id":"a","method":"tools/list"}));
        let listed = body_json(&answer(&req, Some(&msg), on(&tool, "s")));
        assert_eq!(listed["id"], "a");
        assert_eq!(listed["result"]["tools"][0]["name"], "lookup");
        assert_eq!(
            listed["result"]["tools"][0]["annotations"]["readOnlyHint"],
            true
        );
        assert!(listed["result"].get("resultType").is_none());
        assert!(listed["result"]["tools"][0].get("outputSchema").is_none());
        let mut schema = toml::Table::new();
        schema.insert("type".into(), "object".into());
        tool.output_schema = Some(schema);
        let listed = body_json(&answer(&req, Some(&msg), on(&tool, "s")));
        assert_eq!(
            listed["result"]["tools"][0]["outputSchema"],
            json!({"type": "object"})
        );
    }

    #[test]
    fn modern_lists_and_discovery_carry_cache_fields_and_legacy_lists_do_not() {
        let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        let (req, msg) = post(&[("mcp-protocol-version", "2026-07-28")], list.clone());
        let modern = body_json(&answer(&req, Some(&msg), on(&Tool::default(), "s")));
        assert_eq!(
            (&modern["result"]["ttlMs"], &modern["result"]["cacheScope"]),
            (&json!(0), &json!("public"))
        );
        let (req, msg) = post(&[], list);
        let legacy = body_json(&answer(&req, Some(&msg), on(&Tool::default(), "s")));
        assert!(legacy["result"].get("ttlMs").is_none());
        let (req, msg) = post(
            &[],
            json!({"jsonrpc":"2.0","id":2,"method":"server/discover"}),
        );
        let discovered = body_json(&answer(&req, Some(&msg), on(&Tool::default(), "s")));
        assert_eq!(discovered["result"]["resultType"], "complete");
        assert_eq!(discovered["result"]["ttlMs"], 0);
    }

    #[test]
    fn a_2025_server_refuses_discovery_outside_a_session_as_the_typescript_sdk_does() {
        let discover = json!({"jsonrpc":"2.0","id":2,"method":"server/discover"});
        let (req, msg) = post(&[("mcp-protocol-version", "2026-07-28")], discover);
        let tool = Tool::default();
        let server = Server {
            era: Era::Session,
            ..on(&tool, "s")
        };
        let refused = answer(&req, Some(&msg), server);
        assert_eq!(refused.status, Some(400));
        assert_eq!(
            body_json(&refused),
            json!({"jsonrpc": "2.0", "id": null,
                   "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}})
        );
        let code = body_json(&refused)["error"]["code"].as_i64();
        assert!(!crate::era::MODERN_400_CODES.contains(&code.unwrap()));
    }

    #[test]
    fn ping_is_answered_in_a_session_and_unknown_in_2026() {
        let ping = json!({"jsonrpc":"2.0","id":"p","method":"ping"});
        let (req, msg) = post(&[], ping.clone());
        let session = answer(&req, Some(&msg), on(&Tool::default(), "s"));
        assert_eq!(body_json(&session)["result"], json!({}));
        let (req, msg) = post(&[("mcp-protocol-version", "2026-07-28")], ping);
        let modern = answer(&req, Some(&msg), on(&Tool::default(), "s"));
        assert_eq!(modern.status, Some(404));
        assert_eq!(body_json(&modern)["error"]["code"], -32601);
    }

    #[test]
    fn unknown_methods_are_404_in_the_modern_era_and_200_errors_before() {
        let call = json!({"jsonrpc":"2.0","id":5,"method":"resources/list"});
        let (req, msg) = post(&[("mcp-protocol-version", "2026-07-28")], call.clone());
        let modern = answer(&req, Some(&msg), on(&Tool::default(), "s"));
        assert_eq!(modern.status, Some(404));
        assert_eq!(body_json(&modern)["error"]["code"], -32601);
        let (req, msg) = post(&[], call);
        assert_eq!(
            answer(&req, Some(&msg), on(&Tool::default(), "s")).status,
            Some(200)
        );
    }

    #[test]
    fn get_is_405_and_bad_json_is_a_400_parse_error() {
        let get = Request {
            method: "GET".into(),
            path: "/mcp".into(),
            headers: vec![],
            body: vec![],
        };
        assert_eq!(
            answer(&get, None, on(&Tool::default(), "s")).status,
            Some(405)
        );
        let (req, _) = post(&[], json!(null));
        let response = answer(&req, None, on(&Tool::default(), "s"));
        assert_eq!(
            (
                response.status,
                body_json(&response)["error"]["code"].clone()
            ),
            (Some(400), json!(-32700))
        );
    }

    #[test]
    fn a_case_with_tasks_advertises_them_in_its_era_and_no_other_case_does() {
        let tool = Tool {
            task_support: Some(crate::case::TaskSupport::Optional),
            ..Tool::default()
        };
        let tasks = Server {
            tasks: true,
            era: Era::Session,
            ..on(&tool, "s")
        };
        let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize",
                          "params":{"protocolVersion":"2025-11-25"}});
        let (req, msg) = post(&[], init.clone());
        let capabilities = &body_json(&answer(&req, Some(&msg), tasks))["result"]["capabilities"];
        assert_eq!(
            capabilities["tasks"]["requests"]["tools"]["call"],
            json!({})
        );
        let plain = Server {
            tasks: false,
            ..tasks
        };
        let capabilities = &body_json(&answer(&req, Some(&msg), plain))["result"]["capabilities"];
        assert_eq!(capabilities.get("tasks"), None);
        let older = json!({"jsonrpc":"2.0","id":1,"method":"initialize",
                           "params":{"protocolVersion":"2025-06-18"}});
        let (req, msg) = post(&[], older);
        let capabilities = &body_json(&answer(&req, Some(&msg), tasks))["result"]["capabilities"];
        assert_eq!(capabilities.get("tasks"), None, "2025-06-18 has no tasks");
        let discover = json!({"jsonrpc":"2.0","id":2,"method":"server/discover",
                              "params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}});
        let (req, msg) = post(&[("mcp-protocol-version", "2026-07-28")], discover);
        let modern = Server {
            era: Era::Stateless,
            ..tasks
        };
        let found = body_json(&answer(&req, Some(&msg), modern));
        assert_eq!(
            found["result"]["capabilities"]["extensions"][TASKS_EXTENSION],
            json!({})
        );
        assert_eq!(
            advertised(&tool)["execution"],
            json!({"taskSupport": "optional"})
        );
        assert_eq!(advertised(&Tool::default()).get("execution"), None);
    }
}
