//! `serve`: one case's wire script on a loopback port, for a person with curl or an MCP
//! inspector. Each request is logged as it arrives; Ctrl-C stops the server.

use super::Fatal;
use clap::Args;
use mcp_error_layers::case::{Case, CaseSource, builtin};
use mcp_error_layers::transcript;
use mcp_error_layers::wire::WireServer;
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
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"));
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

/// Prints each exchange once it has finished (or once it stalls), until Ctrl-C.
async fn log_until_interrupted(server: &WireServer) {
    let mut shown = 0;
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        tokio::select! {
            _ = &mut interrupted => return,
            _ = tokio::time::sleep(Duration::from_millis(50)) => {
                let record = server.record();
                if record.len() > shown {
                    print!("{}", transcript::render(&record[shown..]));
                    shown = record.len();
                }
            }
        }
    }
}
