//! `--color auto|always|never`: one choice for clap's help and for the program's own output.
//! `auto` is anstream's: colour on a terminal unless `NO_COLOR` is set (`CLICOLOR_FORCE` forces
//! it); a flag on the command line wins over the environment.

use super::Cli;
use clap::{CommandFactory, FromArgMatches};

/// Parses the command line with help and errors coloured as `--color` says. clap prints help
/// while parsing, so the flag is read from the raw arguments first.
pub fn parse() -> Cli {
    let choice = flag(std::env::args_os().skip(1));
    let command = Cli::command().color(choice);
    let matches = command.clone().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.with_cmd(&command).exit())
}

/// The last `--color WHEN` or `--color=WHEN` before a `--`; `auto` without one (clap reports
/// a bad value itself).
fn flag(args: impl Iterator<Item = std::ffi::OsString>) -> clap::ColorChoice {
    let args: Vec<String> = args
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--")
        .collect();
    let mut values =
        args.iter()
            .enumerate()
            .filter_map(|(i, arg)| match arg.strip_prefix("--color") {
                Some("") => args.get(i + 1).map(String::as_str),
                Some(rest) => rest.strip_prefix('='),
                None => None,
            });
    match values.next_back() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

/// Makes `choice` the program's own: every [`anstream`] stream follows it.
pub fn choose(choice: clap::ColorChoice) {
    let global = match choice {
        clap::ColorChoice::Always => anstream::ColorChoice::Always,
        clap::ColorChoice::Never => anstream::ColorChoice::Never,
        clap::ColorChoice::Auto => anstream::ColorChoice::Auto,
    };
    global.write_global();
}

/// Whether output to `stream` gets colour under the choice made.
pub fn enabled(stream: &impl anstream::stream::RawStream) -> bool {
    anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never
}

/// `text` in `style` when `colored`, plain otherwise.
pub fn paint(text: &str, style: anstyle::Style, colored: bool) -> String {
    match colored {
        true => format!("{style}{text}{style:#}"),
        false => text.to_owned(),
    }
}
