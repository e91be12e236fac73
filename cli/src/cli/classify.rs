//! `classify`: a captured HTTP response through the reference classifier.

use super::{Fatal, print};
use clap::Args;
use mcp_error_layers::classify::capture::Capture;
use mcp_error_layers::input::{self, Kind};
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// A file holding the response (status line, headers, blank line, body); stdin when absent
    /// or `-`.
    file: Option<PathBuf>,
    /// The JSON-RPC id of the request the response answers (a JSON value: 1 or "abc").
    #[arg(long, default_value = "1", value_name = "JSON")]
    id: String,
    /// Print one JSON object: outcome, status, code, layer, reason (`null` when absent).
    #[arg(long)]
    json: bool,
}

/// The end of `classify --help`.
pub const CLASSIFY_HELP: &str = "\
Examples:
  mcp-error-layers classify capture.txt
  curl -si -X POST -d @call.json http://127.0.0.1:8080/mcp | mcp-error-layers classify --json

Output (text): `OUTCOME status=N code=N`, then `layer:` and `why:`. With --json:
  {\"outcome\": \"JSONRPC_ERROR\", \"status\": 200, \"code\": -32602, \"layer\": \"protocol\", \"reason\": \"...\"}";

/// Prints the outcome and why.
pub fn classify(args: ClassifyArgs) -> Result<ExitCode, Fatal> {
    let (name, bytes) = read(&args.file)?;
    let id: Value = serde_json::from_str(&args.id).map_err(|e| {
        Fatal::new(format!(
            "--id {:?} is not a JSON value ({e}); try --id 1 or --id '\"abc\"'",
            args.id
        ))
    })?;
    let capture = Capture::parse(&bytes).map_err(|e| Fatal::new(format!("{name}: {e}")))?;
    let classification = capture.classify(&id);
    if args.json {
        let json = serde_json::json!({
            "outcome": classification.outcome.to_string(),
            "status": classification.status,
            "code": classification.code,
            "layer": classification.outcome.layer().to_string(),
            "reason": classification.reason,
        });
        print(&format!("{json}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut line = classification.outcome.to_string();
    if let Some(status) = classification.status {
        line.push_str(&format!(" status={status}"));
    }
    if let Some(code) = classification.code {
        line.push_str(&format!(" code={code}"));
    }
    print(&format!(
        "{line}\n  layer: {}\n  why:   {}\n",
        classification.outcome.layer(),
        classification.reason
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// The capture and its name for messages: the file, or standard input (no file, or `-`); either
/// at most [`Kind::Capture`]'s bound, and a file only when it is a regular one.
fn read(file: &Option<PathBuf>) -> Result<(String, Vec<u8>), Fatal> {
    let fatal = |e: input::InputError| Fatal::new(e.to_string());
    match file {
        Some(path) if path.as_os_str() != "-" => {
            let bytes = input::read(path, Kind::Capture).map_err(fatal)?;
            Ok((path.display().to_string(), bytes))
        }
        _ => {
            let bytes = input::read_stdin(Kind::Capture).map_err(fatal)?;
            Ok(("stdin".into(), bytes))
        }
    }
}
