//! The `mcp-error-layers` command line. Without a subcommand it runs every built-in case
//! against the reference client (`run`), so `cargo run --release` is the main job.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::parse();
    match cli::dispatch(args) {
        Ok(code) => code,
        Err(fatal) => {
            eprintln!("error: {fatal}");
            ExitCode::from(2)
        }
    }
}
