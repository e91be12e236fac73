//! `serve`: one case's wire script on a loopback port, for a person with curl or an MCP
//! inspector. Each exchange is logged once it has ended; Ctrl-C stops the server.

use super::Fatal;
use clap::Args;
use mcp_error_layers::case::{Case, CaseSource, builtin};
use mcp_error_layers::engine::transcript;
use mcp_error_layers::input::{self, Kind};
use mcp_error_layers::wire::{Exchange, WireServer};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A built-in case id (`sse/final-result`) or the path of a case file.
    case: String,
    /// Which `[[call]]` of the case answers `tools/call` (0-based).
    #[arg(long, default_value_t = 0)]
    call: usize,
}

/// Serves until Ctrl-C.
pub fn serve(args: ServeArgs) -> Result<ExitCode, Fatal> {
    let case = find(&args.case)?
        .load()
        .map_err(|e| Fatal::new(e.to_string()))?;
    if args.call >= case.file.call.len() {
        let calls = case.file.call.len();
        return Err(Fatal::new(format!(
            "{} has {calls} call(s); --call must be below {calls}",
            case.id
        )));
    }
    let server = WireServer::start(Arc::new(case.file.clone()))
        .map_err(|e| Fatal::new(format!("cannot bind 127.0.0.1: {e}")))?;
    server.begin_call(args.call);
    announce(&case, &server, args.call);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let runtime = runtime.map_err(|e| Fatal::new(format!("cannot start a runtime: {e}")))?;
    runtime.block_on(log_until_interrupted(&server));
    server.stop();
    println!("stopped");
    Ok(ExitCode::SUCCESS)
}

fn find(wanted: &str) -> Result<CaseSource, Fatal> {
    let path = Path::new(wanted);
    if wanted.ends_with(".toml") || path.is_file() {
        let text = input::read_to_string(path, Kind::Case).map_err(|e| e.why());
        let id = path.with_extension("").display().to_string();
        return Ok(CaseSource {
            id,
            origin: wanted.to_owned(),
            text,
        });
    }
    builtin()
        .into_iter()
        .find(|s| s.id == wanted)
        .ok_or_else(|| {
            Fatal::new(format!(
                "no built-in case {wanted:?} and no such file; see `mcp-error-layers list`"
            ))
        })
}

fn announce(case: &Case, server: &WireServer, call: usize) {
    println!(
        "serving {} ({}) at {}",
        case.id,
        case.file.summary,
        server.url()
    );
    println!("tools/call is answered by call {call}'s replies; other methods by the prelude",);
    println!(
        "try: curl -i -X POST {} -H 'content-type: application/json' \\",
        server.url()
    );
    println!(
        "       -d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"{}\"}}}}'",
        case.file.tool.name
    );
    println!("Ctrl-C stops the server.\n");
}

/// How long an exchange may stay in progress (an SSE stream with gaps, a slow client) before
/// the log shows it anyway, as "in progress", so that it does not hold back the ones after it.
const IN_PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// Prints each exchange once it has ended (or has been in progress for `IN_PROGRESS_AFTER`),
/// in arrival order, until Ctrl-C; then forgets it, so that the server's record holds only what
/// is not printed yet. Waits for the record to change instead of polling it: idle, it sleeps.
async fn log_until_interrupted(server: &WireServer) {
    let mut changes = server.changes();
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        changes.borrow_and_update();
        let age = server.started().elapsed();
        let (text, printed, next) = server.with_record(|exchanges| ready(exchanges, age));
        if printed > 0 {
            // Best effort: a closed stdout is no reason to stop serving.
            let _ = super::print(&text);
            server.forget(printed);
        }
        let due = async {
            match next {
                Some(wait) => tokio::time::sleep(wait).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = &mut interrupted => return,
            changed = changes.changed() => if changed.is_err() { return },
            () = due => {}
        }
    }
}

/// The transcript of the exchanges at the front of `exchanges` that are ready to print, how
/// many they are, and how long until the first one left would be (if one is left). `age` is the
/// server's.
fn ready(exchanges: &[Exchange], age: Duration) -> (String, usize, Option<Duration>) {
    let age_ms = u64::try_from(age.as_millis()).unwrap_or(u64::MAX);
    let patience = u64::try_from(IN_PROGRESS_AFTER.as_millis()).unwrap_or(u64::MAX);
    let waiting = exchanges
        .iter()
        .position(|e| e.reply.end.is_none() && age_ms.saturating_sub(e.at_ms) < patience);
    let count = waiting.unwrap_or(exchanges.len());
    let text = if count > 0 {
        transcript(&exchanges[..count])
    } else {
        String::new()
    };
    let next = waiting.map(|i| {
        let due = exchanges[i].at_ms.saturating_add(patience);
        Duration::from_millis(due.saturating_sub(age_ms))
    });
    (text, count, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_error_layers::wire::{Ended, Sent};

    fn exchange(at_ms: u64, end: Option<Ended>) -> Exchange {
        Exchange {
            at_ms,
            call: 0,
            http_method: "POST".into(),
            path: "/mcp".into(),
            jsonrpc_method: None,
            headers: vec![],
            body: String::new(),
            dropped: 0,
            reply: Sent {
                end,
                ..Sent::default()
            },
        }
    }

    #[test]
    fn ended_exchanges_print_in_order_and_one_in_progress_waits_its_turn() {
        let at = |ms| Duration::from_millis(ms);
        let exchanges = [
            exchange(0, Some(Ended::Complete)),
            exchange(100, None),
            exchange(200, Some(Ended::Close)),
        ];
        let (text, count, next) = ready(&exchanges, at(300));
        assert_eq!((count, next), (1, Some(at(800))), "{text}");
        assert!(
            text.contains("ended: complete") && !text.contains("close"),
            "{text}"
        );
        // Past IN_PROGRESS_AFTER, the one in progress is shown as it is, and the rest follow.
        let (text, count, next) = ready(&exchanges, at(1100));
        assert_eq!((count, next), (3, None));
        assert!(text.contains("ended: in progress"), "{text}");
        assert_eq!(ready(&[], at(0)), (String::new(), 0, None));
    }
}
