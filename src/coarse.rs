//! The coarse observation source: an SDK's *conformance client* (docs/conformance-clients.md).
//!
//! A conformance client is the program an SDK already runs under the official MCP conformance
//! suite. It says one thing per run: exit status 0 (it did what the scenario asked) or not.
//! The harness drives it with the suite's `tools_call` scenario, so two things change for it:
//!
//! - **What the server serves** ([`served`]): the scenario's client lists the tools and calls
//!   `add_numbers` with `{a, b}`, so the case's tool is served under that name with that input
//!   schema, unless the name is what the case tests ([`keeps_name`]). Annotations and the
//!   output schema stay: retry policies and schema checks rest on them.
//! - **How a call is judged** ([`needs_finer`]): exit 0 stands for `TOOL_SUCCESS`, any other end
//!   for `UNCLASSIFIED_ERROR`. A call expected to succeed is judged on that in full. Any other
//!   expectation needs a finer outcome than success or error (which layer failed, which status,
//!   which code), so its outcome, status and code are left aside and the call is judged on its
//!   request checks and the server's counts (`tool_posts` ...) only: a *coarse* judgement,
//!   marked as such in every report. The exit status is still shown beside the expectation.
//!
//! Why not judge "error expected, exit 0" as a failure: the exit status of a conformance client
//! says whether its scenario ran, not what its SDK surfaced; a client may catch and log an
//! error its SDK raised, and `isError` or `input_required` results reach no exit status at all.

use crate::case::{CaseFile, Expect, Tool};
use crate::outcome::Outcome;

/// The tool the `tools_call` scenario's client calls.
pub const TOOL_NAME: &str = "add_numbers";

/// The arguments a served case's calls carry, as the scenario's client sends them: two numbers
/// (the official TypeScript client sends `{"a": 2, "b": 3}`).
pub const ARGUMENTS: &str = r#"{"a":2,"b":3}"#;

/// The scenario the harness runs a conformance client with.
pub const SCENARIO: &str = "tools_call";

/// What every report says of a coarse judgement, after the word `coarse`.
pub const NOTE: &str = "judged on its request checks and server counts only: the adapter \
    tells only success or error (an exit status) and the expectation needs a finer outcome";

/// Whether a call expecting `expect` needs a finer outcome than a conformance client's success
/// or error: every expectation but `TOOL_SUCCESS`. Such a call's judgement is coarse.
pub fn needs_finer(expect: &Expect) -> bool {
    expect.outcome != Outcome::ToolSuccess
}

/// Whether the case tests its tool's name itself, so that it keeps it: a name that cannot go
/// into the `Mcp-Name` header as is (not printable ASCII, padded with spaces, or already in the
/// `=?base64?…?=` form) is there to test how the client encodes it.
pub fn keeps_name(tool: &Tool) -> bool {
    let name = &tool.name;
    let printable = name.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = name.starts_with(' ') || name.ends_with(' ');
    !printable || padded || name.starts_with("=?")
}

/// `file` as the server serves it to a conformance client: the tool renamed `add_numbers`
/// with an input schema of two numbers `a` and `b` (both required), and each call's arguments
/// `{"a": 2, "b": 3}`, unless the case [`keeps_name`]. Everything else is the case's.
pub fn served(file: &CaseFile) -> CaseFile {
    let mut served = file.clone();
    if keeps_name(&file.tool) {
        return served;
    }
    served.tool.name = TOOL_NAME.to_owned();
    served.tool.input_schema = Some(input_schema());
    for call in &mut served.call {
        call.arguments = Some(ARGUMENTS.to_owned());
    }
    served
}

/// `{"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
/// "required": ["a", "b"]}`, the scenario's schema, as a case's TOML table.
fn input_schema() -> toml::Table {
    let number = |what: &str| {
        let mut property = toml::Table::new();
        property.insert("type".into(), "number".into());
        property.insert("description".into(), what.into());
        toml::Value::Table(property)
    };
    let mut properties = toml::Table::new();
    properties.insert("a".into(), number("First number"));
    properties.insert("b".into(), number("Second number"));
    let mut schema = toml::Table::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), toml::Value::Table(properties));
    schema.insert(
        "required".into(),
        toml::Value::Array(vec!["a".into(), "b".into()]),
    );
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseSource;

    fn builtin(id: &str) -> CaseFile {
        let source = crate::case::builtin()
            .into_iter()
            .find(|s: &CaseSource| s.id == id)
            .unwrap_or_else(|| panic!("no built-in case {id}"));
        source.load().unwrap().file
    }

    #[test]
    fn a_served_case_calls_add_numbers_with_two_numbers_and_keeps_its_annotations() {
        let file = builtin("retry/destructive-503-not-retried");
        let served = served(&file);
        assert_eq!(served.tool.name, "add_numbers");
        assert_eq!(served.tool.annotations, file.tool.annotations);
        let schema = serde_json::to_value(served.tool.input_schema.as_ref().unwrap()).unwrap();
        assert_eq!(schema["required"], serde_json::json!(["a", "b"]));
        assert_eq!(schema["properties"]["a"]["type"], "number");
        let arguments: serde_json::Value =
            serde_json::from_str(served.call[0].arguments.as_deref().unwrap()).unwrap();
        assert_eq!(arguments, serde_json::json!({"a": 2, "b": 3}));
        let replies = |file: &CaseFile| serde_json::to_value(&file.call[0].reply).unwrap();
        assert_eq!(replies(&served), replies(&file));
    }

    #[test]
    fn a_case_that_tests_its_tool_name_keeps_it() {
        let file = builtin("requests/non-ascii-tool-name");
        assert!(keeps_name(&file.tool));
        assert_eq!(served(&file).tool.name, file.tool.name);
        for plain in ["synthetic", "lookup_weather", "a b"] {
            let tool = Tool {
                name: plain.into(),
                ..Tool::default()
            };
            assert!(!keeps_name(&tool), "{plain}");
        }
        for special in [" padded", "=?base64?eA==?=", "tab\there"] {
            let tool = Tool {
                name: special.into(),
                ..Tool::default()
            };
            assert!(keeps_name(&tool), "{special:?}");
        }
    }

    #[test]
    fn only_a_success_is_judged_in_full() {
        assert!(!needs_finer(&Expect::new(Outcome::ToolSuccess)));
        for &outcome in Outcome::ALL {
            if outcome != Outcome::ToolSuccess {
                assert!(needs_finer(&Expect::new(outcome)), "{outcome}");
            }
        }
    }
}
