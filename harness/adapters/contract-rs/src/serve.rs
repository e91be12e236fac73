//! The two modes of the contract (docs/adapters.md): one call from the environment, or request
//! lines on stdin, many at once, each answered with its `id`.

use std::io::{BufRead as _, Write as _};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::kept::{self, Clients, Job};
use crate::{Call, NO_TASKS, Observation, Row, Sdk, note};

/// How many calls one process serves at once: the cases of a matrix row that run at once.
const CONCURRENT: u32 = 16;

pub(crate) fn run<R: Row>(
    sdk: Sdk,
    options: &str,
    prepare: impl FnOnce(&[String]) -> Option<R>,
    tasks: bool,
) -> ExitCode {
    let mut words: Vec<String> = std::env::args().collect();
    let usage = usage(words.first().map(String::as_str), options);
    if std::env::var_os("MCP_ERROR_LAYERS_MODE").is_some_and(|mode| mode == "persistent") {
        // Persistent: every request names its endpoint (or its stdio command), so all the
        // arguments are the row's.
        let arguments = words.get(1..).unwrap_or_default();
        let Some(row) = prepare(arguments) else {
            return fail(&format!("unknown arguments {arguments:?}; {usage}"));
        };
        return persistent(&Arc::new(row), sdk, tasks);
    }
    // The last argument: the endpoint URL, or the word `stdio` (MCP_ERROR_LAYERS_TRANSPORT).
    let last = match words.pop() {
        Some(last) if !words.is_empty() => last,
        _ => return fail(&usage),
    };
    let call = match Call::from_env(&last) {
        Ok(call) => call,
        Err(message) => return fail(&format!("{message}; {usage}")),
    };
    let arguments = &words[1..];
    let Some(row) = prepare(arguments) else {
        return fail(&format!("unknown arguments {arguments:?}; {usage}"));
    };
    once(&row, call, tasks)
}

/// One process per call: the call's own client, opened, called and closed, then its line.
fn once<R: Row>(row: &R, call: Call, tasks: bool) -> ExitCode {
    if let Some(refused) = refused(row, &call, tasks) {
        Answer::new(None).send(&refused);
        return ExitCode::SUCCESS;
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start a runtime: {error}")),
    };
    let (jobs, waiting) = tokio::sync::mpsc::unbounded_channel();
    let job = Job {
        call,
        answer: Answer::new(None),
        closes: true,
    };
    // The receiver is alive until the end of `serve` below.
    let _ = jobs.send(job);
    drop(jobs);
    runtime.block_on(kept::serve(row, waiting));
    // Do not wait for tasks the SDK may have left behind.
    runtime.shutdown_background();
    ExitCode::SUCCESS
}

/// Persistent mode: the announcement, then request lines until stdin closes.
fn persistent<R: Row>(row: &Arc<R>, sdk: Sdk, tasks: bool) -> ExitCode {
    prefix_panics();
    let announce = json!({"persistent": 1, "concurrent": CONCURRENT, "name": sdk.name, "version": sdk.version});
    write_line(&announce.to_string());
    let mut clients = Clients::new(Arc::clone(row));
    for line in std::io::stdin().lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                note!("cannot read stdin: {error}");
                break;
            }
        };
        if !line.trim().is_empty() {
            clients.reap();
            serve_line(&**row, &mut clients, &line, tasks);
        }
    }
    // No more calls: those in flight finish, the clients kept for a next call are closed.
    clients.close_all();
    ExitCode::SUCCESS
}

/// One request line: its call goes to the client it names (answered there), or is answered
/// here when it cannot be made.
fn serve_line<R: Row>(row: &R, clients: &mut Clients<R>, line: &str, tasks: bool) {
    let Ok(Value::Object(request)) = serde_json::from_str::<Value>(line) else {
        note!("adapter error: a request line that is no JSON object: {line}");
        Answer::new(None).fail("a request line that is no JSON object");
        return;
    };
    let id = request.get("id").and_then(Value::as_u64);
    crate::serving_request(id);
    let answer = Answer::new(id);
    match Call::from_request(&request) {
        Err(why) => {
            note!("adapter error: {why}");
            answer.fail(&why);
        }
        Ok(call) => match refused(row, &call, tasks) {
            Some(refused) => {
                // The runner ends a case at an unsupported call: its client goes.
                clients.forget(call.client);
                answer.send(&refused);
            }
            None => {
                let closes = call.client.is_none() || call.is_last();
                clients.submit(Job {
                    call,
                    answer,
                    closes,
                });
            }
        },
    }
    crate::serving_request(None);
}

/// `unsupported` for a call that asks for a task of an adapter without tasks, or one the row
/// refuses; `None` for a call the row makes.
fn refused<R: Row>(row: &R, call: &Call, tasks: bool) -> Option<Observation> {
    if call.task.is_some() && !tasks {
        return Some(Observation::Unsupported(NO_TASKS.into()));
    }
    row.refuse(call).map(Observation::Unsupported)
}

/// The one answer a request gets: its observation, or, when the call ends without one (a panic
/// in the row or the SDK), an error line that makes it the runner's `adapter-error`.
pub(crate) struct Answer {
    id: Option<u64>,
    sent: bool,
    /// Where its line goes: stdout ([`write_line`]; the tests keep the lines).
    write: fn(&str),
}

impl Answer {
    pub(crate) fn new(id: Option<u64>) -> Self {
        Self {
            id,
            sent: false,
            write: write_line,
        }
    }

    /// An answer whose line goes to `write`.
    #[cfg(test)]
    pub(crate) fn to(id: Option<u64>, write: fn(&str)) -> Self {
        Self {
            id,
            sent: false,
            write,
        }
    }

    pub(crate) fn id(&self) -> Option<u64> {
        self.id
    }

    pub(crate) fn send(mut self, observation: &Observation) {
        self.sent = true;
        (self.write)(&observation.answer_line(self.id));
    }

    /// Not an observation: the runner makes this call an `adapter-error` and shows the line.
    fn fail(mut self, why: &str) {
        self.sent = true;
        (self.write)(&error_line(self.id, why));
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        if !self.sent {
            let why = "the call ended without an observation (a panic? see stderr)";
            (self.write)(&error_line(self.id, why));
        }
    }
}

fn error_line(id: Option<u64>, why: &str) -> String {
    let mut line = json!({"error": format!("the adapter failed: {why}")});
    if let Some(id) = id {
        line["id"] = id.into();
    }
    line.to_string()
}

/// One line on stdout, in one piece (calls at once answer from threads of their own).
fn write_line(line: &str) {
    let mut stdout = std::io::stdout().lock();
    // Stdout gone means the runner is gone: nothing to tell.
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

/// A panic's message goes to stderr with the prefix of the request its thread serves.
fn prefix_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if crate::current_request().is_some() {
            crate::note_text(&format!("panicked: {info}"));
        } else {
            default(info);
        }
    }));
}

/// The usage line: the program's file name, the row's `options`, the endpoint URL (or `stdio`).
fn usage(program: Option<&str>, options: &str) -> String {
    let program = program
        .and_then(|path| Path::new(path).file_name())
        .and_then(|name| name.to_str())
        .unwrap_or("adapter");
    let words: Vec<&str> = [program, options, "<endpoint-url | stdio>"]
        .into_iter()
        .filter(|word| !word.is_empty())
        .collect();
    format!(
        "usage: {} (the call comes in MCP_ERROR_LAYERS_* variables; `stdio` with \
         MCP_ERROR_LAYERS_TRANSPORT=stdio and the server's command in \
         MCP_ERROR_LAYERS_STDIO_COMMAND), or with MCP_ERROR_LAYERS_MODE=persistent and no URL \
         (request lines on stdin)",
        words.join(" ")
    )
}

fn fail(message: &str) -> ExitCode {
    note!("adapter error: {message}");
    ExitCode::from(2)
}
