//! `completions SHELL` and `man`: generated from the clap definitions, so they cannot drift
//! from the options.

use super::{Cli, Fatal, write_to};
use clap::{Args, CommandFactory};
use std::process::ExitCode;

pub const COMPLETIONS_HELP: &str = "\
Examples:
  mcp-error-layers completions bash > ~/.local/share/bash-completion/completions/mcp-error-layers
  mcp-error-layers completions zsh > ~/.zfunc/_mcp-error-layers
  mcp-error-layers completions fish > ~/.config/fish/completions/mcp-error-layers.fish";

pub const MAN_HELP: &str = "\
Examples:
  mcp-error-layers man | man -l -
  mcp-error-layers man > ~/.local/share/man/man1/mcp-error-layers.1";

/// Options of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Prints the completion script.
pub fn completions(args: CompletionsArgs) -> Result<ExitCode, Fatal> {
    let mut script = Vec::new();
    let mut command = Cli::command();
    let name = command.get_name().to_owned();
    clap_complete::generate(args.shell, &mut command, name, &mut script);
    write_to(&mut std::io::stdout().lock(), "stdout", &script)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the man page.
pub fn man() -> Result<ExitCode, Fatal> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| Fatal::new(format!("cannot render the man page: {e}")))?;
    write_to(&mut std::io::stdout().lock(), "stdout", &page)?;
    Ok(ExitCode::SUCCESS)
}
