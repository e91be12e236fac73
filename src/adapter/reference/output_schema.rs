//! Structured results judged against the tool's output schema: "Clients SHOULD validate
//! structured results against this schema" (server/tools, "Output Schema", from 2025-06-18 on).
//!
//! When the call asks for it ([`crate::adapter::CallContext::list_tools`]) the client lists the
//! tools first, in the same era and session as the call, and keeps the called tool's
//! `outputSchema`. A successful result is then judged locally: no `structuredContent`, or one
//! the schema rejects, is `INVALID_TOOL_RESULT`, with a reason that names this client as the
//! judge, so that it cannot be mistaken for an error the server sent. A result with
//! `isError: true` is a tool error whatever it holds: validation never hides it.

use super::exchange::{Reply, exchange};
use super::{Mode, Run, body, prefixed, wire};
use crate::classify::Classification;
use crate::era::MODERN_VERSION;
use crate::outcome::Outcome;
use boon::{Compiler, Draft, Schemas, UrlLoader};
use serde_json::{Value, json};

/// Where the schema is registered for the compiler; nothing is ever loaded from it.
const SCHEMA_LOCATION: &str = "urn:mcp-error-layers:output-schema";

impl Run<'_> {
    /// The call's MRTR rounds, after learning the tool's output schema when the call asks the
    /// client to list the tools (a successful result is then judged against it), and its task
    /// when it runs as one (`tasks`, which lists the tools too in 2025-11-25).
    pub(super) async fn tool_call(&mut self, mode: Mode<'_>) -> Reply {
        let listed = if self.ctx.list_tools || self.lists_for_task(mode) {
            self.list_tools(mode).await
        } else {
            None
        };
        let schema = listed
            .as_ref()
            .filter(|_| self.ctx.list_tools)
            .and_then(|l| output_schema(l, &self.ctx.tool));
        self.task_augmented = self.augments(mode, listed.as_ref());
        let reply = self.rounds(mode).await;
        let reply = self.through_task(mode, reply).await;
        match schema {
            Some(schema) => judged(reply, &schema),
            None => reply,
        }
    }

    /// `tools/list` in `mode`; its result, when one came.
    pub(super) async fn list_tools(&mut self, mode: Mode<'_>) -> Option<Value> {
        let id = self.next_id();
        let request = match mode {
            Mode::Stateless => {
                let meta = wire::stateless_meta(&id, self.options.mrtr);
                let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
                                  "params": {"_meta": meta}});
                self.post(&body)
                    .header(wire::PROTOCOL_VERSION, MODERN_VERSION)
                    .header(wire::METHOD, "tools/list")
            }
            Mode::Session(session) => {
                let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
                self.in_session(self.post(&body), session)
            }
        };
        let reply = exchange(request, &id, &self.deadline, None).await;
        body::result(&reply, &id)
    }
}

/// The `outputSchema` of `tool` in a `tools/list` result.
pub(super) fn output_schema(listed: &Value, tool: &str) -> Option<Value> {
    let tools = listed.get("tools")?.as_array()?;
    let entry = tools.iter().find(|t| t.get("name") == Some(&json!(tool)))?;
    entry.get("outputSchema").cloned()
}

/// `reply`, judged against `schema` when it is a tool success.
fn judged(reply: Reply, schema: &Value) -> Reply {
    if reply.classification.outcome != Outcome::ToolSuccess {
        return reply;
    }
    let result = body::result(&reply, &reply.id).unwrap_or(Value::Null);
    let classification = judged_result(reply.classification, &result, schema);
    Reply {
        classification,
        ..reply
    }
}

/// The classification of `result` (a call's result), judged against `schema` when it is a
/// tool success: for a client that holds the result itself (over stdio).
pub(super) fn judged_result(
    mut classification: Classification,
    result: &Value,
    schema: &Value,
) -> Classification {
    if classification.outcome != Outcome::ToolSuccess {
        return classification;
    }
    match check(result, schema) {
        Ok(()) => {}
        Err(Problem::Invalid(why)) => {
            classification.outcome = Outcome::InvalidToolResult;
            classification.reason = format!(
                "this client's own check against the tool's outputSchema: {why} (the server \
                 sent a success)"
            );
        }
        Err(Problem::Unusable(why)) => {
            classification = prefixed(classification, &format!("not validated ({why})"));
        }
    }
    classification
}

/// Why a result fails its schema, or why it could not be judged.
#[derive(Debug, PartialEq)]
enum Problem {
    Invalid(String),
    Unusable(String),
}

/// Whether `result`'s `structuredContent` is there and matches `schema`.
fn check(result: &Value, schema: &Value) -> Result<(), Problem> {
    let Some(structured) = result.get("structuredContent") else {
        return Err(Problem::Invalid(
            "no structuredContent, though the tool declares an outputSchema".into(),
        ));
    };
    let (schemas, index) = compile(schema).map_err(Problem::Unusable)?;
    schemas.validate(structured, index).map_err(|error| {
        let text = error.to_string();
        // The first line names the schema location; the causes that follow say what failed.
        let causes: Vec<&str> = text
            .lines()
            .skip(1)
            .map(|line| line.trim().trim_start_matches("- "))
            .collect();
        Problem::Invalid(format!(
            "structuredContent does not match: {}",
            if causes.is_empty() {
                text.clone()
            } else {
                causes.join("; ")
            }
        ))
    })
}

/// Compiles a schema a peer sent, as JSON Schema 2020-12 unless it names its draft, with no
/// way to load anything: a `$ref` to a file or a URL is an error, never a read.
fn compile(schema: &Value) -> Result<(Schemas, boon::SchemaIndex), String> {
    let mut compiler = Compiler::new();
    compiler.set_default_draft(Draft::V2020_12);
    compiler.use_loader(Box::new(NoLoader));
    let mut schemas = Schemas::new();
    let unusable = |error| format!("the tool's outputSchema does not compile: {error}");
    compiler
        .add_resource(SCHEMA_LOCATION, schema.clone())
        .map_err(unusable)?;
    let index = compiler
        .compile(SCHEMA_LOCATION, &mut schemas)
        .map_err(unusable)?;
    Ok((schemas, index))
}

/// Refuses every load: a schema from the server may only refer within itself.
struct NoLoader;

impl UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url} is outside the schema; this client loads nothing").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "required": ["temperature"],
               "properties": {"temperature": {"type": "number"}}})
    }

    #[test]
    fn a_structured_result_must_be_there_and_match() {
        let good = json!({"content": [], "structuredContent": {"temperature": 21.5}});
        assert_eq!(check(&good, &schema()), Ok(()));
        let Err(Problem::Invalid(why)) = check(
            &json!({"structuredContent": {"temperature": "warm"}}),
            &schema(),
        ) else {
            panic!("a string is no number");
        };
        assert!(
            why.contains("/temperature") && why.contains("want number"),
            "{why}"
        );
        let Err(Problem::Invalid(why)) = check(&json!({"content": []}), &schema()) else {
            panic!("missing structuredContent");
        };
        assert!(why.contains("no structuredContent"), "{why}");
    }

    #[test]
    fn a_schema_from_the_peer_cannot_make_the_client_read_anything() {
        for reference in [
            "file:///etc/passwd",
            "http://127.0.0.1:9/schema.json",
            "/dev/zero",
        ] {
            let schema = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
            let Err(Problem::Unusable(why)) =
                check(&json!({"structuredContent": {"a": 1}}), &schema)
            else {
                panic!("{reference} must not load");
            };
            assert!(why.contains("does not compile"), "{why}");
        }
    }

    #[test]
    fn the_listed_tools_give_the_called_tools_schema() {
        let listed = json!({"tools": [{"name": "other", "outputSchema": {"type": "object"}},
                                      {"name": "synthetic", "outputSchema": schema()}]});
        assert_eq!(output_schema(&listed, "synthetic"), Some(schema()));
        assert_eq!(output_schema(&listed, "missing"), None);
        assert_eq!(output_schema(&json!({"tools": 3}), "synthetic"), None);
    }
}
