//! How the command line reports: exit codes, one-line errors, and writing to a closed pipe.

use std::io::{self, Write};
use std::process::ExitCode;

/// Why a command stopped early, which decides the exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad usage or input (a malformed FEN, an illegal move...): exit code 2.
    Input(anyhow::Error),
    /// Anything else (I/O, a table that fails its checks...): exit code 1.
    Other(anyhow::Error),
    /// The reader of our output went away (`rafle moves ... | head`): not an error.
    BrokenPipe,
}

impl From<io::Error> for Failure {
    fn from(err: io::Error) -> Failure {
        if err.kind() == io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Other(err.into())
        }
    }
}

/// Marks an error as the user's input being wrong.
pub fn input<E: Into<anyhow::Error>>(err: E) -> Failure {
    Failure::Input(err.into())
}

/// Any other failure, from an error whose message already names its cause (the tables'
/// errors do): kept as one message so that the `{:#}` of `main` does not repeat the cause.
pub fn other<E: std::fmt::Display>(err: E) -> Failure {
    Failure::Other(anyhow::anyhow!("{err}"))
}

/// Writes `args` and a newline on stderr, as `eprintln!` would, but never panics: a stderr
/// that fails (a full disk, `2>/dev/full`, a closed descriptor) loses the message rather than
/// turning an error into an abort, and the exit code stays the one documented.
pub fn write_stderr(args: std::fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    let _ = stderr
        .write_fmt(args)
        .and_then(|()| stderr.write_all(b"\n"));
}

/// `eprintln!` that ignores a failing stderr ([`write_stderr`]): every message of the command
/// line goes through it.
macro_rules! stderr_line {
    ($($arg:tt)*) => {
        $crate::output::write_stderr(format_args!($($arg)*))
    };
}
pub(crate) use stderr_line;

/// Prints clap's verdict: help and version on stdout, anything else as one line on stderr with
/// exit code 2.
pub fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = io::stdout().write_all(err.render().to_string().as_bytes());
        return ExitCode::SUCCESS;
    }
    let message = if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        "no command given".to_string()
    } else {
        one_line(&bounded(err).render().to_string())
    };
    stderr_line!("rafle: {message} (see 'rafle --help')");
    ExitCode::from(2)
}

/// The error with the values it quotes cut to an excerpt ([`rafle_probe::draughts::excerpt`]): clap
/// quotes a value given whole, and a 20 KB `--variant` must not make a 20 KB message.
fn bounded(mut err: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg] {
        if let Some(ContextValue::String(value)) = err.get(kind) {
            let shown = rafle_probe::draughts::excerpt(value);
            err.insert(kind, ContextValue::String(shown));
        }
    }
    err
}

/// Clap's message up to its usage block, folded onto one line.
fn one_line(rendered: &str) -> String {
    let text = rendered
        .lines()
        .take_while(|line| !line.starts_with("Usage:") && !line.starts_with("For more information"))
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    // Clap quotes the values given as they are; a control character in one must not reach
    // the terminal.
    let text = rafle_draughts::printable(text.strip_prefix("error: ").unwrap_or(&text));
    if text.is_empty() {
        "invalid usage".to_string()
    } else {
        text
    }
}

/// A panic is a bug in rafle; report it in one line rather than with a backtrace.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_string());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        // A panic while printing the panic would abort the process (exit 134).
        stderr_line!("rafle: internal error{place}: {message} (this is a bug in rafle)");
    }));
}

/// A progress bar of positions for the commands that walk whole tables (`stats`, `verify`,
/// `compare`): drawn on stderr only when it is a terminal, the results going to stdout.
pub fn positions_bar() -> indicatif::ProgressBar {
    indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template(
            "{prefix:>24} [{bar:40}] {human_pos}/{human_len} positions  {per_sec}  ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    )
}
