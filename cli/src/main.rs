//! The `mcp-error-layers` command line. Without a subcommand it runs every built-in case
//! against the reference client (`run`), so `cargo run` is the main job.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // `stdio-server --session FILE` (and its `--probe`) is served before the command line is
    // parsed: it starts once per stdio case, as fast as it can.
    if let Some(code) = mcp_error_layers::stdio::intercept() {
        return code;
    }
    let args = cli::parse();
    match cli::dispatch(args) {
        Ok(code) => code,
        Err(fatal) => {
            eprintln!("error: {fatal}");
            ExitCode::from(2)
        }
    }
}
