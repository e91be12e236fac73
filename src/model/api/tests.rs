use super::*;
use serde_json::json;

#[test]
fn paths_name_their_api() {
    assert_eq!(
        route("POST", "/v1/messages"),
        Route::Generate(Api::Anthropic)
    );
    assert_eq!(
        route("POST", "/v1/messages?beta=true"),
        Route::Generate(Api::Anthropic)
    );
    assert_eq!(
        route("POST", "/v1/messages/count_tokens"),
        Route::CountTokens(Api::Anthropic)
    );
    assert_eq!(
        route("POST", "/v1/responses"),
        Route::Generate(Api::Responses)
    );
    assert_eq!(
        route("POST", "/v1/chat/completions"),
        Route::Generate(Api::Chat)
    );
    assert_eq!(
        route(
            "POST",
            "/v1beta/models/scripted:streamGenerateContent?alt=sse"
        ),
        Route::Generate(Api::Gemini)
    );
    assert_eq!(
        route("POST", "/v1beta/models/m:countTokens"),
        Route::CountTokens(Api::Gemini)
    );
    assert_eq!(route("GET", "/v1/models"), Route::Models);
    assert_eq!(route("GET", "/v1/messages"), Route::Unknown);
    assert_eq!(route("POST", "/elsewhere"), Route::Unknown);
}

#[test]
fn each_api_lists_its_tools() {
    let anthropic = json!({"tools": [{"name": "mcp__probe__synthetic"}, {"name": "Bash"}]});
    assert_eq!(
        Api::Anthropic.tools(&anthropic),
        ["mcp__probe__synthetic", "Bash"]
    );
    let responses = json!({"tools": [{"type": "function", "name": "probe__synthetic"},
        {"type": "namespace", "name": "mcp__probe", "tools": [{"name": "synthetic"}]}]});
    assert_eq!(
        Api::Responses.tools(&responses),
        ["probe__synthetic", "mcp__probe::synthetic"]
    );
    let chat = json!({"tools": [{"type": "function", "function": {"name": "probe_synthetic"}}]});
    assert_eq!(Api::Chat.tools(&chat), ["probe_synthetic"]);
    let gemini = json!({"tools": [{"functionDeclarations": [{"name": "synthetic"}]}]});
    assert_eq!(Api::Gemini.tools(&gemini), ["synthetic"]);
}

#[test]
fn each_api_reads_its_tool_results_and_flags() {
    let anthropic = json!({"messages": [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_1", "is_error": true,
         "content": [{"type": "text", "text": "nope"}, {"type": "image"}]}]}]});
    let result = &Api::Anthropic.results(&anthropic)[0];
    assert_eq!(
        (result.call_id.as_str(), result.text.as_str()),
        ("call_1", "nope\n[image]")
    );
    assert_eq!(result.flagged, Some(true));

    let responses = json!({"input": [{"type": "function_call_output", "call_id": "call_1",
                                      "output": "ok"}]});
    assert_eq!(Api::Responses.results(&responses)[0].flagged, None);

    let chat = json!({"messages": [{"role": "tool", "tool_call_id": "call_1",
                                    "content": "Error: HTTP 503"}]});
    assert_eq!(Api::Chat.results(&chat)[0].text, "Error: HTTP 503");

    let gemini = json!({"contents": [{"role": "user", "parts": [{"functionResponse": {
        "name": "synthetic", "response": {"error": "MCP error -32602: Invalid params"}}}]}]});
    let result = &Api::Gemini.results(&gemini)[0];
    assert_eq!(result.call_id, "synthetic");
    assert_eq!(result.flagged, Some(true));
    assert_eq!(result.text, "MCP error -32602: Invalid params");
}

/// The data of every SSE event in `body`, parsed.
fn events(body: &Body) -> Vec<serde_json::Value> {
    let text = String::from_utf8(body.bytes.clone()).unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| *data != "[DONE]")
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

#[test]
fn a_call_reply_names_the_tool_and_its_arguments_in_every_framing() {
    let arguments = json!({"city": "Zürich"});
    let call = Reply::Call {
        id: "call_1",
        name: "mcp__probe__synthetic",
        arguments: &arguments,
    };
    let none = json!({});
    let body = Api::Anthropic.reply(call, Framing::Sse, &none);
    let delta = &events(&body)[2]["delta"]["partial_json"];
    assert_eq!(delta, &json!(arguments.to_string()));
    let body = Api::Anthropic.reply(call, Framing::Json, &none);
    let message: serde_json::Value = serde_json::from_slice(&body.bytes).unwrap();
    assert_eq!(message["content"][0]["input"], arguments);
    assert_eq!(message["stop_reason"], "tool_use");

    let body = Api::Responses.reply(call, Framing::Sse, &none);
    let completed = events(&body).pop().unwrap();
    assert_eq!(completed["type"], "response.completed");
    assert_eq!(completed["response"]["output"][0]["call_id"], "call_1");
    let namespaced = Reply::Call {
        id: "call_1",
        name: "mcp__probe::synthetic",
        arguments: &arguments,
    };
    let body = Api::Responses.reply(namespaced, Framing::Sse, &none);
    let done = &events(&body)[2]["item"];
    assert_eq!(
        (&done["namespace"], &done["name"]),
        (&json!("mcp__probe"), &json!("synthetic"))
    );

    let usage = json!({"stream_options": {"include_usage": true}});
    let body = Api::Chat.reply(call, Framing::Sse, &usage);
    let chunks = events(&body);
    assert_eq!(
        chunks[0]["choices"][0]["delta"]["tool_calls"][0]["id"],
        "call_1"
    );
    assert_eq!(chunks[1]["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(chunks[2]["usage"]["total_tokens"], 2);
    assert!(String::from_utf8_lossy(&body.bytes).ends_with("data: [DONE]\n\n"));

    let body = Api::Gemini.reply(call, Framing::JsonArray, &none);
    let chunks: serde_json::Value = serde_json::from_slice(&body.bytes).unwrap();
    let part = &chunks[0]["candidates"][0]["content"]["parts"][0]["functionCall"];
    assert_eq!(part["args"], arguments);
}

#[test]
fn a_text_reply_ends_the_turn() {
    let none = json!({});
    let body = Api::Chat.reply(Reply::Text("done."), Framing::Json, &none);
    let completion: serde_json::Value = serde_json::from_slice(&body.bytes).unwrap();
    assert_eq!(completion["choices"][0]["finish_reason"], "stop");
    let body = Api::Anthropic.reply(Reply::Text("done."), Framing::Sse, &none);
    assert_eq!(events(&body)[4]["delta"]["stop_reason"], "end_turn");
}

#[test]
fn a_streaming_request_is_answered_with_events() {
    let streams = json!({"stream": true});
    assert_eq!(
        Api::Chat.framing("/v1/chat/completions", &streams),
        Framing::Sse
    );
    assert_eq!(
        Api::Chat.framing("/v1/chat/completions", &json!({})),
        Framing::Json
    );
    let path = "/v1beta/models/m:streamGenerateContent?alt=sse";
    assert_eq!(Api::Gemini.framing(path, &json!({})), Framing::Sse);
    let path = "/v1beta/models/m:streamGenerateContent";
    assert_eq!(Api::Gemini.framing(path, &json!({})), Framing::JsonArray);
}
