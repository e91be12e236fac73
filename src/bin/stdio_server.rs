//! `mcp-error-layers-stdio --session FILE`: the harness's stdio server on its own, for runners
//! whose executable cannot serve stdio cases itself (a test binary with the standard harness:
//! `Run::stdio_server(env!("CARGO_BIN_EXE_mcp-error-layers-stdio"))`). docs/stdio.md.

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Some(code) = mcp_error_layers::stdio::intercept() {
        return code;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, file] if flag == "--session" => mcp_error_layers::stdio::serve(file.as_ref()),
        _ => {
            eprintln!("usage: mcp-error-layers-stdio --session FILE (docs/stdio.md)");
            ExitCode::from(2)
        }
    }
}
