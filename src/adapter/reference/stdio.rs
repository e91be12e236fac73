//! The reference client over stdio (docs/stdio.md): it starts the server from the command line
//! it is given, keeps it for the calls of a case, and reads what comes back line by line.
//!
//! What it does about the faults of a process: a non-JSON line, a response to another id and
//! a notification are skipped, so the response after them still counts (if none comes, the
//! skipped line is what it reports at its timeout); a server request is answered (`ping`) or
//! refused; the end of stdout is a `CONNECTION_ERROR` at once, saying how the process ended;
//! stderr is always read; a server that died is started again for the next call.

mod pipe;

use super::wire;
use crate::adapter::CallContext;
use crate::classify::{Classification, classify_message};
use crate::era::Era;
use crate::outcome::Outcome;
use pipe::{Incoming, Pipe, ending_words};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::time::Instant;

/// The stdio connections kept between the calls of a case, by client id.
#[derive(Debug, Default)]
pub(super) struct Connections {
    kept: Mutex<HashMap<u64, Connection>>,
}

/// One server process and what the client knows about it.
#[derive(Debug)]
struct Connection {
    pipe: Pipe,
    last_id: u64,
    ready: bool,
}

/// A call's answer: how it ended and how many `tools/call` requests went out.
pub(super) struct Answer {
    pub classification: Classification,
    pub attempts: u32,
}

impl Connections {
    /// Makes `call` over stdio, on the case's connection (started, or started again after the
    /// server died, unless it was launched for a harness driver: a bridge is started once).
    pub async fn call(&self, call: &CallContext, era: Era) -> Answer {
        let mut kept = self.take(call.client.id);
        if call.launch.is_some() && kept.as_mut().is_some_and(|c| !c.pipe.alive()) {
            let why = "the stdio server (the bridge) exited after an earlier call of the case; a \
                       bridge is not started again, so this call has nothing to go through";
            return Answer {
                classification: Classification::connection_error(why.to_owned()),
                attempts: 0,
            };
        }
        let mut connection = match reuse_or_start(kept, call) {
            Ok(connection) => connection,
            Err(e) => {
                let why = format!("the stdio server could not be started: {e}");
                return Answer {
                    classification: Classification::connection_error(why),
                    attempts: 0,
                };
            }
        };
        let deadline = Instant::now() + call.timeout;
        let answer = connection.call(call, era, deadline).await;
        if call.client.call + 1 >= call.client.calls {
            connection.pipe.close().await;
        } else if let Ok(mut kept) = self.kept.lock() {
            kept.insert(call.client.id, connection);
        }
        answer
    }

    /// Starts the server of `call`'s client and makes the era's handshake, keeping the
    /// connection for the call to come, within `timeout`: starting a server that sits in front
    /// of another (a bridge row's bridge) is then not the call's time. `Err` says why it did
    /// not; nothing is kept then, and the call starts the server again.
    pub async fn connect(
        &self,
        call: &CallContext,
        era: Era,
        timeout: std::time::Duration,
    ) -> Result<(), String> {
        let kept = self.take(call.client.id);
        let mut connection = reuse_or_start(kept, call)
            .map_err(|e| format!("the stdio server could not be started: {e}"))?;
        if !connection.ready {
            let deadline = Instant::now() + timeout;
            connection
                .handshake(call, era, deadline)
                .await
                .map_err(|c| format!("initialize: {}", c.reason))?;
            connection.ready = true;
        }
        if let Ok(mut kept) = self.kept.lock() {
            kept.insert(call.client.id, connection);
        }
        Ok(())
    }

    /// Sends `tools/list` on client `id`'s kept connection and waits for its response until
    /// `timeout`, then closes the connection: whether the server behind it still serves after
    /// the client's calls (a bridge row's `hop-survives`). `Err` says why not.
    pub async fn probe(&self, id: u64, timeout: std::time::Duration) -> Result<(), String> {
        let Some(mut connection) = self.take(id) else {
            return Err("the client kept no connection to it".to_owned());
        };
        let answered = connection.list_tools(Instant::now() + timeout).await;
        connection.pipe.close().await;
        answered
    }

    fn take(&self, id: u64) -> Option<Connection> {
        self.kept.lock().ok()?.remove(&id)
    }
}

/// The kept connection if its server still answers; a new one otherwise (the old killed).
fn reuse_or_start(kept: Option<Connection>, call: &CallContext) -> std::io::Result<Connection> {
    if let Some(mut connection) = kept {
        if connection.pipe.alive() {
            return Ok(connection);
        }
    }
    Ok(Connection {
        pipe: Pipe::start(&call.command, call.launch.as_deref())?,
        last_id: 0,
        ready: false,
    })
}

/// What the lines skipped while waiting said, for a call that got no response.
#[derive(Debug, Default)]
struct Skipped {
    /// The first line that was not JSON.
    not_json: Option<String>,
    /// The first response to an id that was not asked.
    foreign: Option<String>,
}

impl Connection {
    fn next_id(&mut self) -> Value {
        self.last_id += 1;
        json!(self.last_id)
    }

    async fn call(&mut self, call: &CallContext, era: Era, deadline: Instant) -> Answer {
        if !self.ready {
            if let Err(classification) = self.handshake(call, era, deadline).await {
                return Answer {
                    classification: prefixed(classification, "initialize"),
                    attempts: 0,
                };
            }
            self.ready = true;
        }
        // As over HTTP (`output_schema`): the tool's schema first when the call asks for it.
        let schema = match call.list_tools {
            true => self
                .listed(era, deadline)
                .await
                .ok()
                .and_then(|listed| super::output_schema::output_schema(&listed, &call.tool)),
            false => None,
        };
        let id = self.next_id();
        let meta = match era {
            Era::Stateless => wire::stateless_meta(&id, false),
            Era::Session => wire::session_meta(&id),
        };
        let request = wire::tools_call(&id, &call.tool, &call.arguments, meta, &Map::new());
        if !self.pipe.send(&request).await {
            let ended = ending_words(self.pipe.ending().await);
            let why = format!("the stdio server {ended}: its stdin is closed");
            return Answer {
                classification: Classification::connection_error(why),
                attempts: 0,
            };
        }
        let classification = match self.response(&id, deadline).await {
            Ok(message) => {
                let classification = classify_message(&message, &id);
                match (&schema, message.get("result")) {
                    (Some(schema), Some(result)) => {
                        super::output_schema::judged_result(classification, result, schema)
                    }
                    _ => classification,
                }
            }
            Err(failed) => failed,
        };
        if classification.outcome == Outcome::Timeout {
            self.cancel(&id).await;
        }
        Answer {
            classification,
            attempts: 1,
        }
    }

    /// `tools/list` on this connection: `Ok` when a result answers it.
    async fn list_tools(&mut self, deadline: Instant) -> Result<(), String> {
        if !self.pipe.alive() {
            let ended = ending_words(self.pipe.ending().await);
            return Err(format!("the process {ended}"));
        }
        self.listed(Era::Session, deadline).await.map(drop)
    }

    /// The result of `tools/list` in `era` (2026-07-28 with its `_meta`), or why none came.
    async fn listed(&mut self, era: Era, deadline: Instant) -> Result<Value, String> {
        let id = self.next_id();
        let mut list = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        if era == Era::Stateless {
            list["params"] = json!({"_meta": wire::stateless_meta(&id, false)});
        }
        if !self.pipe.send(&list).await {
            return Err("its stdin is closed".to_owned());
        }
        let answer = self.response(&id, deadline).await.map_err(|c| c.reason)?;
        match answer.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(classify_message(&answer, &id).reason),
        }
    }

    /// 2025: `initialize` and its notification; 2026-07-28 needs no handshake.
    async fn handshake(
        &mut self,
        call: &CallContext,
        era: Era,
        deadline: Instant,
    ) -> Result<(), Classification> {
        if era == Era::Stateless {
            return Ok(());
        }
        let id = self.next_id();
        self.pipe
            .send(&wire::initialize(&id, &call.protocol_version))
            .await;
        let answer = self.response(&id, deadline).await?;
        if answer.get("result").is_none() {
            return Err(classify_message(&answer, &id));
        }
        self.pipe.send(&wire::initialized()).await;
        Ok(())
    }

    /// Reads lines until the message that answers `id` (the response, or a batch holding it:
    /// an invalid envelope), the end of stdout or the deadline.
    async fn response(&mut self, id: &Value, deadline: Instant) -> Result<Value, Classification> {
        let mut skipped = Skipped::default();
        loop {
            let incoming = tokio::select! {
                incoming = self.pipe.next() => incoming,
                () = tokio::time::sleep_until(deadline) => return Err(timed_out(skipped)),
            };
            let line = match incoming {
                Incoming::Line(line) => line,
                Incoming::Eof => {
                    let ended = ending_words(self.pipe.ending().await);
                    let why = format!("the stdio server {ended} before the response");
                    return Err(Classification::connection_error(why));
                }
            };
            if let Some(decided) = self.read(line, id, &mut skipped).await {
                return decided;
            }
        }
    }

    /// One line: the response to `id` decides; anything else is answered or skipped.
    async fn read(
        &mut self,
        line: Vec<u8>,
        id: &Value,
        skipped: &mut Skipped,
    ) -> Option<Result<Value, Classification>> {
        let Ok(message) = serde_json::from_slice::<Value>(&line) else {
            skipped.not_json.get_or_insert_with(|| shown(&line));
            return None;
        };
        if let Some(batch) = message.as_array() {
            if batch.iter().any(|m| m.get("id") == Some(id)) {
                let why = "a JSON array (a batch) holds the response";
                return Some(Err(decided(Outcome::InvalidEnvelope, why)));
            }
            skipped.foreign.get_or_insert_with(|| shown(&line));
            return None;
        }
        if message.get("method").is_some_and(Value::is_string) {
            self.answer_request(&message).await;
            return None;
        }
        if message.get("id") == Some(id) {
            return Some(Ok(message));
        }
        skipped.foreign.get_or_insert_with(|| shown(&line));
        None
    }

    /// Answers a server request: `ping` with an empty result, anything else with -32601.
    async fn answer_request(&mut self, request: &Value) {
        let Some(id) = request.get("id") else {
            return; // a notification
        };
        let answer = match request.get("method").and_then(Value::as_str) {
            Some("ping") => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            _ => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}}),
        };
        self.pipe.send(&answer).await;
    }

    /// Tells the server the client gave up on `id` (`notifications/cancelled`).
    async fn cancel(&mut self, id: &Value) {
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "timeout"}});
        self.pipe.send(&cancel).await;
    }
}

/// No response by the deadline: what was skipped explains it best, else a timeout.
fn timed_out(skipped: Skipped) -> Classification {
    match (skipped.not_json, skipped.foreign) {
        (Some(line), _) => decided(
            Outcome::MalformedJson,
            format!("no response; the server wrote a line that is not JSON: {line}"),
        ),
        (None, Some(line)) => decided(
            Outcome::InvalidEnvelope,
            format!("no response to this request; the server answered another id: {line}"),
        ),
        (None, None) => Classification::timeout("no response line before the timeout"),
    }
}

/// The first 200 bytes of a line, for a detail.
fn shown(line: &[u8]) -> String {
    let end = line.len().min(200);
    String::from_utf8_lossy(&line[..end]).into_owned()
}

fn decided(outcome: Outcome, reason: impl Into<String>) -> Classification {
    Classification {
        outcome,
        status: None,
        code: None,
        reason: reason.into(),
    }
}

fn prefixed(mut classification: Classification, step: &str) -> Classification {
    classification.reason = format!("{step}: {}", classification.reason);
    classification
}
